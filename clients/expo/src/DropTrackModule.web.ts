import type { EventSubscription } from 'expo-modules-core';
import type { DropTrackNativeModule } from './DropTrackNativeModule';

// The web has neither Live Activities nor Live Updates: every call is a harmless no-op, so one
// code path serves all three platforms. Starting one is the exception: it says why it cannot.
const noSubscription: EventSubscription = { remove() {} };

const DropTrackWeb: DropTrackNativeModule = {
  async configure() {},
  async setDeviceCredential() {},
  isSupported: () => false,
  isPushToStartEligible: () => false,
  canPostPromotedNotifications: () => false,
  areActivitiesEnabled: async () => false,
  requestNotificationPermission: async () => false,
  openLiveActivitySettings: async () => false,
  async startDelivery() {
    throw new Error('DropTrack: Live Activities and Live Updates exist on iOS and Android only, not on the web');
  },
  updateDelivery: async () => false,
  async endDelivery(activityId: string) {
    throw new Error(`DropTrack: the phone shows no delivery '${activityId}': the web has none`);
  },
  getRunningActivities: async () => [],
  reconcile: async () => ({ endedLocally: [], reportedLost: [] }),
  addListener: () => noSubscription,
};

export default DropTrackWeb;
