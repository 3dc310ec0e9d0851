// customer_ref is documented as a UUID and treated by clients as opaque. Only
// a well-formed UUID can name a stored customer; anything else matches nobody.

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isCustomerRef(value: string): boolean {
  return UUID.test(value);
}
