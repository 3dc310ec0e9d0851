import { contactFiguresReport } from "../phases/contact-figures-phase.ts";

// `node bench/experiments/contact-figures.ts`: the contact figures' phase of `npm run bench` on its own, on
// DATABASE_URL's server (a fresh database) or, without it, the embedded database.

const stamp = new Date().toISOString().replace(/\D/g, "").slice(0, 14);
process.stdout.write(await contactFiguresReport({ databaseUrl: process.env.DATABASE_URL, stamp }));
