// Where the example finds DropTrack and the backend that mints its device credentials. 10.0.2.2 is
// the development machine (its 127.0.0.1) as seen from the Android emulator; on a phone, use its LAN
// address. DropTrack refuses cleartext URLs except for localhost, 127.0.0.1 and 10.0.2.2.
export const config = {
  /** `droptrack serve --listen 127.0.0.1:8787` on the development machine. */
  serverUrl: 'http://10.0.2.2:8787',
  /** dev-backend.mjs: holds the API key and asks DropTrack for a device credential. */
  credentialUrl: 'http://10.0.2.2:8788/credential',
  /** The signed-in user; the backend mints credentials for this id. */
  userId: 'u1',
};
