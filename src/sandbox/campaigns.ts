// Campaigns: the twin of src/model/campaigns.ts.
import { randomBytes } from 'node:crypto';
import { deleteRoute, fail, list, MESSAGES, minLength, must, ok, optBool, optString, route, slugify, type Ctx, type Json } from './kit.js';
import { insert, type Campaign } from './state.js';
import { campaignSlug as slugAsStored, capitalisedName } from '../model/rewrites.js';

/** 7.7 cleans and capitalises a campaign's name (fact 29), by the rule linkctl predicts it with. */
const campaignName = (ctx: Ctx, v: unknown) => {
  const name = minLength(v, 2, MESSAGES.campaignName);
  return ctx.quirks ? capitalisedName(name) : name;
};
/**
 * 7.7 transliterates and lowercases a slug, on create and update (fact 30), and refuses one that
 * any campaign holds, the campaign's own included.
 */
function campaignSlug(ctx: Ctx, v: unknown, self?: number): string | null | undefined {
  const raw = optString(v, 'slug');
  if (raw === undefined) return undefined;
  const slug = ctx.quirks ? (slugAsStored(raw) ?? slugify(raw).toLowerCase()) : slugify(raw);
  if (!slug) return null;
  if (ctx.state.campaigns.some((c) => (ctx.quirks || c.id !== self) && c.slug?.toLowerCase() === slug.toLowerCase())) fail(MESSAGES.slugTaken);
  return slug;
}
const SLUG_LETTERS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
/** The product gives a campaign created without a slug a random one of six letters in mixed case (`mvkPaK`). */
function randomSlug(ctx: Ctx): string {
  for (;;) {
    const slug = [...randomBytes(6)].map((b) => SLUG_LETTERS[b % SLUG_LETTERS.length]).join('');
    if (!ctx.state.campaigns.some((c) => c.slug === slug)) return slug;
  }
}
function campaignView(ctx: Ctx, c: Campaign) {
  const list = `${ctx.base}/u/${ctx.state.account.username}/${c.slug ? `${c.slug}-${c.id}` : c.id}`;
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

export const campaignRoutes = [
  route('GET /api/campaigns', (ctx) => list(ctx, 'campaigns', ctx.state.campaigns, (c) =>
    (ctx.quirks ? { ...campaignView(ctx, c), views: c.views } : campaignView(ctx, c)))),
  route('POST /api/campaign/add', (ctx) => {
    const name = campaignName(ctx, ctx.body.name);
    if (ctx.state.campaigns.some((c) => c.name.toLowerCase() === name.toLowerCase())) fail('You already have a campaign with that name.');
    const slug = campaignSlug(ctx, ctx.body.slug) ?? randomSlug(ctx);
    const c = insert(ctx.state, 'campaigns', (id) => ({ id, name, slug, public: optBool(ctx.body.public) ?? false, views: 0 }));
    return campaignReply(ctx, c);
  }),
  route('PUT /api/campaign/:id/update', (ctx) => {
    const c = must(ctx, ctx.state.campaigns, MESSAGES.campaignNotFound);
    // the document requires the name; 7.6 keeps the old one when none is sent
    const name = ctx.quirks && ctx.body.name === undefined ? c.name : campaignName(ctx, ctx.body.name);
    const slug = campaignSlug(ctx, ctx.body.slug, c.id);
    const pub = optBool(ctx.body.public);
    Object.assign(c, { name }, slug === undefined ? {} : { slug }, pub === undefined ? {} : { public: pub });
    return campaignReply(ctx, c);
  }),
  route('POST /api/campaign/:campaignid/assign/:linkid', (ctx) => {
    const c = must(ctx, ctx.state.campaigns, MESSAGES.campaignNotFound, ctx.ids.campaignid);
    must(ctx, ctx.state.links, MESSAGES.campaignAssignLinkNotFound, ctx.ids.linkid).campaign = c.id;
    return ok('Link successfully added to the campaign.');
  }),
  deleteRoute('DELETE /api/campaign/:id/delete', 'campaigns', MESSAGES.campaignNotFound, () => 'Campaign has been deleted successfully.',
    (state, id) => { for (const l of state.links) if (l.campaign === id) delete l.campaign; }),
];
