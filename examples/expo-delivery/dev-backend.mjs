// The app's backend, reduced to the one endpoint DropTrack's client needs, for development only:
// it holds the app's DropTrack API key (never the app) and answers
// GET /credential?userId=u1 with a device credential from POST /v1/device-credentials.
//   DROPTRACK_URL=http://127.0.0.1:8787 DROPTRACK_API_KEY=… node dev-backend.mjs   (listens on 127.0.0.1:8788,
//   which the Android emulator reaches as 10.0.2.2; HOST=<LAN address> for a phone on the network)
import { createServer } from 'node:http';

const droptrack = process.env.DROPTRACK_URL ?? 'http://127.0.0.1:8787';
const apiKey = process.env.DROPTRACK_API_KEY;
const port = Number(process.env.PORT ?? 8788);
const host = process.env.HOST ?? '127.0.0.1';
if (!apiKey) {
  console.error('dev-backend: set DROPTRACK_API_KEY to the key `droptrack apps add` printed');
  process.exit(2);
}

createServer(async (request, response) => {
  const url = new URL(request.url ?? '/', 'http://localhost');
  const userId = url.searchParams.get('userId');
  if (url.pathname !== '/credential' || !userId) {
    response.writeHead(404).end();
    return;
  }
  // A real backend checks here that the caller is signed in as userId.
  const minted = await fetch(`${droptrack}/v1/device-credentials`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ userId }),
  });
  const body = await minted.text();
  response.writeHead(minted.status, { 'Content-Type': 'application/json' }).end(body);
}).listen(port, host, () => console.log(`dev-backend: http://${host}:${port}/credential?userId=u1 → ${droptrack}`));
