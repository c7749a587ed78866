// src/notify: alerts reach a person who is not looking (README.md).
export {
  parseChannel,
  parseChannels,
  redactUrl,
  basesFromEnv,
  type Channel,
  type ChannelBases,
} from './channel-url.js';
export { notifyChannels, notifyUrls, type NotifySources } from './sources.js';
export { notifyFromWatch, type Notifier, type NotifierOptions, type NotifiedWatch } from './notifier.js';
export type { NotifyFailure } from './outbox.js';
export type { NotifyEvent } from './notify-event.js';
