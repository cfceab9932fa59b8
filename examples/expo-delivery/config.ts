// Where the example finds DropTrack and the backend that mints its device credentials: the
// development machine, which the Android emulator calls 10.0.2.2 and the iOS simulator 127.0.0.1.
// On a phone, use the machine's network address behind HTTPS: DropTrack refuses cleartext URLs
// except for localhost, 127.0.0.1 and 10.0.2.2.
import { Platform } from 'react-native';

const machine = Platform.OS === 'android' ? '10.0.2.2' : '127.0.0.1';

export const config = {
  /** `droptrack serve --listen 127.0.0.1:8787` on the development machine. */
  serverUrl: `http://${machine}:8787`,
  /** dev-backend.mjs: holds the API key and asks DropTrack for a device credential. */
  credentialUrl: `http://${machine}:8788/credential`,
  /** The signed-in user; the backend mints credentials for this id. */
  userId: 'u1',
};
