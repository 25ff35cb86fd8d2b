// The read-path ceiling: a bare Fastify server answering constant JSON bodies of the same
// sizes as the API's responses, with no database, no auth, no logging.
import Fastify from 'fastify';

const bodies = JSON.parse(process.argv[2] ?? '{}') as Record<string, string>;
const app = Fastify({ logger: false });
for (const [name, body] of Object.entries(bodies)) {
  app.get(`/${name}`, async (_request, reply) =>
    reply.type('application/json; charset=utf-8').send(body),
  );
}
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
console.log(JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0 }));
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
