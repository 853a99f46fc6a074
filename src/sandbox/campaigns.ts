// Campaigns: the twin of src/model/campaigns.ts. Stored values go through src/model/rewrites.ts, the
// functions linkctl predicts them with: names cleaned and capitalised, slugs transliterated.
import { randomBytes } from 'node:crypto';
import { campaignSlug, capitalisedName, phpString, phpTruthy } from '../model/rewrites.js';
import { add, deleteRoute, fail, list, listed, mine, MESSAGES, must, ok, optBool, route, slugify, type Ctx, type Json } from './kit.js';
import { ownerOf, type Campaign } from './state.js';

/**
 * A name as sent, the way the product reads it (fact 31): a number is text (`2024`); cleaned; at
 * least 2 bytes, not trimmed (`"  "` is a name). undefined when it is too short.
 */
function campaignName(ctx: Ctx, v: unknown): string | undefined {
  if (!ctx.quirks) return typeof v === 'string' && v.trim().length >= 2 ? v.trim() : undefined;
  if (typeof v !== 'string' && typeof v !== 'number') return undefined;
  const name = capitalisedName(phpString(v));
  return Buffer.byteLength(name) >= 2 ? name : undefined;
}

/**
 * The slug a campaign gets for `v` (fact 30): transliterated, lower case, punctuation runs as one
 * `-`. null when it becomes empty (a campaign without slug); undefined when none was sent (or an
 * empty one on update, which keeps the slug). A slug any campaign of any user holds is refused,
 * the campaign's own included (so repeating the current slug fails, as on the product).
 */
function claimSlug(ctx: Ctx, v: unknown, self?: number): string | null | undefined {
  const updating = self !== undefined;
  if (v === undefined || v === null || (updating && v === '')) return undefined;
  const raw = phpString(v);
  let slug: string;
  if (ctx.quirks) {
    // other scripts are romanised by the product by rules the sandbox does not carry: it keeps their Latin part
    slug = campaignSlug(raw) ?? campaignSlug(raw.replace(/[^\p{Script=Latin}\p{N}\s_.-]/gu, ' '))!;
  } else {
    slug = slugify(raw);
  }
  if (!slug) return null;
  // compared as the product's database compares text, letter case aside (a random slug is mixed case); the documented mode lets a campaign keep its own
  const lower = slug.toLowerCase();
  if (ctx.state.campaigns.some((c) => c.slug?.toLowerCase() === lower && (ctx.quirks || c.id !== self))) fail(MESSAGES.slugTaken);
  return slug;
}
const SLUG_LETTERS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
/** The product gives a campaign created without a slug a random one of six letters in mixed case (`mvkPaK`). */
function randomSlug(ctx: Ctx): string {
  for (;;) {
    const slug = [...randomBytes(6)].map((b) => SLUG_LETTERS[b % SLUG_LETTERS.length]).join('');
    if (!ctx.state.campaigns.some((c) => c.slug?.toLowerCase() === slug.toLowerCase())) return slug;
  }
}
function campaignView(ctx: Ctx, c: Campaign) {
  const username = ctx.state.users.find((u) => u.id === ownerOf(c))?.username ?? ctx.user.username;
  const list = `${ctx.base}/u/${username}/${c.slug ? `${c.slug}-${c.id}` : c.id}`;
  return {
    id: c.id, name: c.name, public: c.public,
    rotator: c.slug ? `${ctx.base}/r/${c.slug}` : false,
    list: c.slug || !ctx.quirks ? list : false,
  };
}
/** Create and update answer the name under `domain` (documented) or `campaign` (real servers). */
function campaignReply(ctx: Ctx, c: Campaign): Json {
  const { name, ...rest } = campaignView(ctx, c);
  return { error: 0, ...rest, [ctx.quirks ? 'campaign' : 'domain']: name };
}
const truthy = (ctx: Ctx, v: unknown) => (v === undefined ? undefined : ctx.quirks ? phpTruthy(v) : optBool(v));

export const campaignRoutes = [
  route('GET /api/campaigns', (ctx) => list(ctx, 'campaigns', listed(ctx, mine(ctx, ctx.state.campaigns)), (c) =>
    (ctx.quirks ? { ...campaignView(ctx, c), views: c.views } : campaignView(ctx, c)))),
  route('POST /api/campaign/add', (ctx) => {
    const name = campaignName(ctx, ctx.body.name) ?? fail(MESSAGES.campaignName);
    // the user's own names, ignoring letter case
    if (mine(ctx, ctx.state.campaigns).some((c) => c.name.toLowerCase() === name.toLowerCase())) fail('You already have a campaign with that name.');
    const slug = claimSlug(ctx, ctx.body.slug);
    const c = add(ctx, 'campaigns', (id) => ({
      id, name, slug: slug === undefined ? randomSlug(ctx) : slug, public: truthy(ctx, ctx.body.public) ?? false, views: 0,
    }));
    return campaignReply(ctx, c);
  }),
  route('PUT /api/campaign/:id/update', (ctx) => {
    const c = must(ctx, ctx.state.campaigns, MESSAGES.campaignNotFound);
    // 7.7 keeps the old name when none is sent, or one of 2 bytes or less (fact 31); the document requires one
    const given = ctx.body.name === undefined ? undefined : campaignName(ctx, ctx.body.name);
    const name = !ctx.quirks ? given ?? fail(MESSAGES.campaignName) : given !== undefined && Buffer.byteLength(given) > 2 ? given : undefined;
    const slug = claimSlug(ctx, ctx.body.slug, c.id);
    const pub = truthy(ctx, ctx.body.public);
    Object.assign(c, name === undefined ? {} : { name }, slug === undefined ? {} : { slug }, pub === undefined ? {} : { public: pub });
    return campaignReply(ctx, c);
  }),
  route('POST /api/campaign/:campaignid/assign/:linkid', (ctx) => {
    const c = must(ctx, ctx.state.campaigns, MESSAGES.campaignNotFound, ctx.ids.campaignid);
    must(ctx, ctx.state.links, MESSAGES.campaignAssignLinkNotFound, ctx.ids.linkid).campaign = c.id;
    return ok('Link successfully added to the campaign.');
  }),
  // 7.7 leaves the campaign's links alone: they keep answering its id (fact 6)
  deleteRoute('DELETE /api/campaign/:id/delete', 'campaigns', MESSAGES.campaignNotFound, () => 'Campaign has been deleted successfully.',
    (ctx, c) => { if (!ctx.quirks) for (const l of ctx.state.links) if (l.campaign === c.id) delete l.campaign; }),
];
