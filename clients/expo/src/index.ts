import { DropTrack } from './DropTrack';
import DropTrackModule from './DropTrackModule';

export * from './DropTrack.types';
export { checkDeliveryState, DeliveryStateError } from './DeliveryState';
export { DropTrack } from './DropTrack';

const dropTrack = new DropTrack(DropTrackModule);

/** Starts the token sync; call once at launch. See `DropTrackConfiguration`. */
export const configure = dropTrack.configure.bind(dropTrack);
export const isSupported = dropTrack.isSupported.bind(dropTrack);
export const isPushToStartEligible = dropTrack.isPushToStartEligible.bind(dropTrack);
export const canPostPromotedNotifications = dropTrack.canPostPromotedNotifications.bind(dropTrack);
export const areActivitiesEnabled = dropTrack.areActivitiesEnabled.bind(dropTrack);
export const requestNotificationPermission = dropTrack.requestNotificationPermission.bind(dropTrack);
export const openLiveActivitySettings = dropTrack.openLiveActivitySettings.bind(dropTrack);
export const startDelivery = dropTrack.startDelivery.bind(dropTrack);
export const updateDelivery = dropTrack.updateDelivery.bind(dropTrack);
export const endDelivery = dropTrack.endDelivery.bind(dropTrack);
export const getRunningActivities = dropTrack.getRunningActivities.bind(dropTrack);
export const reconcile = dropTrack.reconcile.bind(dropTrack);
export const addTokenListener = dropTrack.addTokenListener.bind(dropTrack);
export const addPushListener = dropTrack.addPushListener.bind(dropTrack);
