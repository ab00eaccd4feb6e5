/**
 * A worker process: runs the turns the front enqueues (any number of these, on any machine).
 *   WORKER_NAME=a DATABASE_URL=postgres://... npx tsx examples/workers/worker.ts
 * SIGTERM / SIGINT: finishes the running turns, hands the queued ones back, exits.
 */
import { openApp } from "./app.js";

const name = process.env.WORKER_NAME ?? `worker-${process.pid}`;
const app = await openApp({ worker: true, name, concurrency: Number(process.env.CONCURRENCY ?? 8) });
console.log(`${name} ready`);
const stop = () => void app.close().then(() => process.exit(0));
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
