import { requireNativeModule } from 'expo-modules-core';
import type { DropTrackNativeModule } from './DropTrackNativeModule';

/** The native module; throws at import when the app was built without it (run a new native build). */
export default requireNativeModule<DropTrackNativeModule>('DropTrack');
