// The settings stored sealed by the secrets key. Named here, beside the reseal that must reach every one of
// them, rather than in the use cases that read them (customers/, dashboard-auth/), which lie above.

/** The key of the "do not remember" hashes (src/customers/forget-me-pepper.ts). */
export const FORGET_ME_PEPPER_SETTING = "forget_me_pepper";

/** The key that signs the dashboard's CSRF cookie (src/dashboard-auth/cookie-secret.ts). */
export const COOKIE_SECRET_SETTING = "dashboard_cookie_secret";
