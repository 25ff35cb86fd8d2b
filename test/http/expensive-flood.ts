// The noisy tenant of expensive-requests.alone.test.ts, in a worker thread: `connections`
// loops, each asking for the next of `paths` as soon as the last is answered, until the
// parent posts a message; then it posts back how many answers it had of each status. A thread
// of its own, as a client elsewhere would be: its own parsing and garbage collection are not
// the API's event loop's (the cores are shared all the same).
import { parentPort, workerData } from 'node:worker_threads';

const { url, secret, paths, connections } = workerData as {
  url: string;
  secret: string;
  paths: string[];
  connections: number;
};
let running = true;
parentPort!.once('message', () => {
  running = false;
});
const statuses: Record<number, number> = {};
await Promise.all(
  Array.from({ length: connections }, async (_, connection) => {
    for (let i = connection; running; i++) {
      const res = await fetch(`${url}${paths[i % paths.length]}`, {
        headers: { authorization: `Bearer ${secret}` },
      });
      await res.arrayBuffer();
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
    }
  }),
);
parentPort!.postMessage(statuses);
