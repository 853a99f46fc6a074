/** Every resource model by kind: the one table commands, bulk, links-as-code, MCP, stats and check look paths up in. */
import type { Kind, Model } from './model.js';
import { campaigns } from './campaigns.js';
import { channels } from './channels.js';
import { domains } from './domains.js';
import { links } from './links.js';
import { overlays } from './overlays.js';
import { pixels } from './pixels.js';
import { qr } from './qr.js';
import { splash } from './splash.js';

export const MODELS: Record<Kind, Model> = { domains, pixels, campaigns, channels, links, qr, overlays, splash };
export { KINDS, type Kind, type Model } from './model.js';
