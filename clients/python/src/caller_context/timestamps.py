"""RFC 3339 timestamps as the service writes them, read on every Python from 3.10 on.

`datetime.fromisoformat` before 3.11 takes neither a trailing "Z" nor fractions of other than 3 or 6 digits,
which protobuf's JSON writes (0, 3, 6 or 9 digits).
"""

from __future__ import annotations

import re
from datetime import datetime

_FRACTION = re.compile(r"\.(\d+)")


def parse_timestamp(value: object) -> datetime | None:
    if not isinstance(value, str) or value == "":
        return None
    text = value[:-1] + "+00:00" if value.endswith(("Z", "z")) else value
    text = _FRACTION.sub(lambda m: "." + (m.group(1) + "000000")[:6], text, count=1)
    return datetime.fromisoformat(text)
