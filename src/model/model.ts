/**
 * What every resource of the API has, and the requests made the same way for each. A resource's
 * own file (links.ts, qr.ts, ...) says what is particular to it: its paths, collection keys,
 * natural key, which fields its list items carry and which only its single read has, and how it
 * is turned into a request body. Nothing outside src/model/ writes an API path.
 */
import type { ApiClient, Query, RequestOptions } from '../http/client.js';
import type { Body } from '../http/envelope.js';
import type { Rec, StoredFields } from './values.js';
import { ApiError } from '../errors.js';

export const KINDS = ['domains', 'pixels', 'campaigns', 'channels', 'links', 'qr', 'overlays', 'splash'] as const;
export type Kind = (typeof KINDS)[number];

export interface Model {
  kind: Kind;
  /** A singular noun for messages, e.g. `QR code`. */
  noun: string;
  /** linkctl's command for it, e.g. `qr` (hints name `linkctl qr list`). */
  command: string;
  /** The list: its path and collection keys (documented first, then what real servers send). */
  list: string;
  keys: readonly string[];
  /** The path of one record; update and delete append `/update` and `/delete`. */
  item(id: number): string;
  /** The create path; undefined for read-only resources (overlays, splash pages). */
  add?: string;
  /** Whether `GET item(id)` answers the record (links and QR codes; the others have no single read). */
  readOne?: boolean;
  /** The natural key of a list item, as people and files name it (a name, a domain, an alias). */
  key(item: Rec): string | undefined;
  /**
   * A query that finds records by their key without reading every page (links: `q`, a substring
   * search); undefined when only a full read can find a record by its key.
   */
  search?(key: string): Query;
  /** Fields the list items carry. */
  listFields: readonly string[];
  /** What the product stores of the fields it rewrites (./values.ts StoredAs): names are found as written or as stored. */
  stored?: StoredFields;
  /** Fields only the single read gives (one request per record). */
  detailFields?: readonly string[];
  /**
   * Refusals of a create or update whose cause the server's message does not say, and what to do
   * (real-servers.md): the hint an error with a matching message gets.
   */
  refusals?: ReadonlyArray<{ message: RegExp; hint: string }>;
}

/** The messages of one record's requests name it: "QR code 12: QR does not exist.". */
const about = (model: Model, id: number) => `${model.noun} ${id}`;
/** A delete's lines start with the record, as its success line does ("Link 12: Link has been successfully deleted."). */
const aboutDeleted = (model: Model, id: number) => `${model.noun[0]!.toUpperCase()}${model.noun.slice(1)} ${id}`;

export function readOne(client: ApiClient, model: Model, id: number, options: RequestOptions = {}): Promise<Body> {
  return client.request('GET', model.item(id), { expect: ['details'], about: about(model, id), ...options });
}

export function create(client: ApiClient, model: Model, json: unknown, options: RequestOptions = {}): Promise<Body> {
  if (!model.add) throw new Error(`internal: ${model.kind} cannot be created through the API`);
  return explained(model, client.request('POST', model.add, { json, expect: ['id'], checkWith: `linkctl ${model.command} list`, ...options }));
}

export function update(client: ApiClient, model: Model, id: number, json: unknown, options: RequestOptions = {}): Promise<Body> {
  return explained(model, client.request('PUT', `${model.item(id)}/update`, { json, about: about(model, id), ...options }));
}

/** A write's refusal with the hint its model gives for that message (see `Model.refusals`), when it has none of its own. */
async function explained(model: Model, write: Promise<Body>): Promise<Body> {
  try {
    return await write;
  } catch (error) {
    const known = error instanceof ApiError && !error.hint ? model.refusals?.find((r) => r.message.test(error.message)) : undefined;
    if (!known) throw error;
    throw new ApiError((error as ApiError).message, known.hint);
  }
}

export function remove(client: ApiClient, model: Model, id: number, options: RequestOptions = {}): Promise<Body> {
  return client.request('DELETE', `${model.item(id)}/delete`, { about: aboutDeleted(model, id), ...options });
}
