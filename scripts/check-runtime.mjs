// Runs before `npm install` under whatever Node runs npm, so it is plain JavaScript.
// Where package.json pins a Node runtime for this platform, npm installs it into
// node_modules/.bin and every npm script runs on it; elsewhere the Node on PATH must do.
import { readFileSync } from "node:fs";

const MINIMUM = [22, 18];
const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
const platform = `${process.platform}-${process.arch}`;
const pinned = Object.keys(pkg.optionalDependencies ?? {}).includes(`node-${platform}`);
const [major, minor] = process.versions.node.split(".").map(Number);
const recent = major > MINIMUM[0] || (major === MINIMUM[0] && minor >= MINIMUM[1]);

if (!pinned && !recent) {
  process.stderr.write(
    `caller-context: Node.js ${MINIMUM.join(".")} or newer is needed on ${platform} (this is ${process.version}); ` +
      "install Node.js 24 (https://nodejs.org/en/download) and run npm install again\n",
  );
  process.exit(1);
}
