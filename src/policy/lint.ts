/**
 * `linkctl lint`'s rules over an account's links (read from the server or from an account file),
 * and what the history database knows of them (clicks, the last health check). Reads only. Each
 * finding names its rule, the record and the fix; the policy (./policy.ts) turns rules off or
 * gives them another severity and window, and its write rules are reported for links already made.
 */
import { editDistance } from '../distance.js';
import { destinationKey } from '../model/links.js';
import { LINT_RULES, rulesFor, SEVERITIES, violations, type LintRule, type LintSetting, type Policy, type Severity } from './policy.js';

export interface LintLink {
  id?: number;
  alias?: string;
  domain?: string;
  url?: string;
  /** `YYYY-MM-DD HH:MM:SS` UTC, as servers give it; undefined when the link has none (or it was not read). */
  expiry?: string;
  campaign?: string;
  /** Its other destinations (geo, device and language targets, deep links), held to the same rules as `url`. */
  targets?: ReadonlyArray<{ where: string; url: string }>;
}

export interface Finding {
  rule: string;
  severity: Severity;
  /** The record, as people name it: `link 12 (spring)`, or `link spring` in a file. */
  record: string;
  message: string;
  fix: string;
}

/** What the click history says of the account: the newest time each link's clicks changed (or it was first seen), and how far back it goes. */
export interface ClickHistory {
  /** By link id: the time its total last changed, or when it was first recorded. */
  lastChange: Map<number, string>;
  /** The first and newest snapshot, and how many there are. */
  first: string;
  newest: string;
  snapshots: number;
  where: string;
}

/** The last health check's broken links, by id. */
export interface LastCheck {
  finishedAt: string;
  broken: Map<number, { status: string; destination: string; error?: string }>;
  where: string;
}

export interface LintInput {
  links: LintLink[];
  policy?: Policy;
  history?: ClickHistory;
  check?: LastCheck;
  now: number;
}

const DAY_MS = 86_400_000;

export function setting(policy: Policy | undefined, rule: LintRule): Required<Pick<LintSetting, 'severity'>> & { days?: number } {
  const base = LINT_RULES[rule];
  const given = policy?.lint[rule];
  return { severity: given?.severity ?? base.severity, days: given?.days ?? ('days' in base ? base.days : undefined) };
}

const named = (l: LintLink) => (l.id !== undefined ? `link ${l.id}${l.alias ? ` (${l.alias})` : ''}` : `link ${l.domain ? `${l.domain}/` : ''}${l.alias ?? l.url ?? '?'}`);

/**
 * An alias as it looks: case folded, and characters that pass for one another made one
 * (`1`, `l`, `I` and `|`; `0` and `o`; `rn` and `m`; `5` and `s`; `_` and `-`).
 */
export function skeleton(alias: string): string {
  return alias
    .normalize('NFKC')
    .toLowerCase()
    .replace(/rn/g, 'm')
    .replace(/vv/g, 'w')
    .replace(/[1|!i]/g, 'l')
    .replace(/0/g, 'o')
    .replace(/5/g, 's')
    .replace(/3/g, 'e')
    .replace(/[_.]/g, '-');
}

/** A value as spelled apart from case and separators: `E-mail`, `email` and `EMAIL` are one. */
const spelling = (v: string) => v.normalize('NFKC').toLowerCase().replace(/[\s_.+-]+/g, '');

export function lint(input: LintInput): Finding[] {
  const { policy } = input;
  // In the order they were made: findings of one rule then come in a stable order, whatever order a server lists links in.
  const links = [...input.links].sort((a, b) => (a.id ?? 0) - (b.id ?? 0));
  const findings: Finding[] = [];
  const add = (rule: LintRule, finding: Omit<Finding, 'rule' | 'severity'>) => {
    const s = setting(policy, rule);
    if (s.severity !== 'off') findings.push({ rule, severity: s.severity, ...finding });
  };
  const on = (rule: LintRule) => setting(policy, rule).severity !== 'off';

  // The policy's write rules, for links made before it (or around it).
  if (policy) {
    for (const l of links) {
      const subject = { url: l.url, alias: l.alias, domain: l.domain, campaign: l.campaign, targets: l.targets };
      for (const v of violations(rulesFor(policy, subject), subject)) findings.push({ rule: v.rule, severity: 'error', record: named(l), message: v.message, fix: v.fix });
    }
  }

  if (on('insecure-destination')) {
    for (const l of links) {
      if (l.url && /^http:\/\//i.test(l.url)) add('insecure-destination', { record: named(l), message: `goes to plain http: ${l.url}`, fix: `point it at https://${l.url.slice(7)} if that site serves it` });
      for (const t of l.targets ?? []) {
        if (/^http:\/\//i.test(t.url)) add('insecure-destination', { record: named(l), message: `its ${t.where} goes to plain http: ${t.url}`, fix: `point it at https://${t.url.slice(7)} if that site serves it` });
      }
    }
  }

  if (on('duplicate-destination')) {
    const byDestination = new Map<string, LintLink[]>();
    for (const l of links) {
      if (!l.url) continue;
      const key = destinationKey(l.url);
      byDestination.set(key, [...(byDestination.get(key) ?? []), l]);
    }
    for (const group of byDestination.values()) {
      if (group.length < 2) continue;
      group.sort((a, b) => (a.id ?? 0) - (b.id ?? 0));
      const [first, ...rest] = group;
      add('duplicate-destination', { record: group.map(named).join(', '), message: `${group.length} links go to ${first!.url}`, fix: `keep one (${named(first!)}) and delete or repoint ${rest.length === 1 ? 'the other' : 'the others'}, unless each is meant for its own channel` });
    }
  }

  if (on('lookalike-alias')) {
    // Pairs one confusable character apart share a skeleton; pairs one edit apart share a
    // one-deletion variant of their skeletons (a linear pass, not every pair of 100,000 aliases).
    const aliased = links.filter((l) => l.alias && l.alias.length >= 4);
    const variants = new Map<string, number[]>();
    aliased.forEach((l, i) => {
      const s = skeleton(l.alias!);
      const keys = new Set([s, ...Array.from(s, (_, j) => s.slice(0, j) + s.slice(j + 1))]);
      for (const key of keys) variants.set(key, [...(variants.get(key) ?? []), i]);
    });
    const seen = new Set<string>();
    for (const group of variants.values()) {
      for (let a = 0; a < group.length; a++) {
        for (let b = a + 1; b < group.length; b++) {
          // The older link first, as people made them.
          const [x, y] = [aliased[group[a]!]!, aliased[group[b]!]!].sort((p, q) => (p.id ?? 0) - (q.id ?? 0)) as [LintLink, LintLink];
          const pair = `${group[a]},${group[b]}`;
          if (seen.has(pair) || x.alias!.toLowerCase() === y.alias!.toLowerCase()) continue;
          const confusable = skeleton(x.alias!) === skeleton(y.alias!);
          if (!confusable && editDistance(skeleton(x.alias!), skeleton(y.alias!)) > 1) continue;
          seen.add(pair);
          add('lookalike-alias', { record: `${named(x)}, ${named(y)}`, message: `"${x.alias}" and "${y.alias}" ${confusable ? 'look alike' : 'are one character apart'}`, fix: 'rename one, so that a reader or a typo cannot land on the other' });
        }
      }
    }
  }

  if (on('utm-spelling')) {
    // Each UTM parameter by its spelling: the links using each name for it, and for each value the links using each way of writing it.
    type Uses = Map<string, LintLink[]>;
    const names = new Map<string, Uses>();
    const values = new Map<string, Map<string, Uses>>();
    const use = (uses: Uses, spelt: string, l: LintLink) => {
      const list = uses.get(spelt) ?? [];
      if (!list.includes(l)) list.push(l);
      uses.set(spelt, list);
    };
    for (const l of links) {
      let url: URL;
      try {
        url = new URL(l.url ?? '');
      } catch {
        continue;
      }
      for (const [name, value] of url.searchParams) {
        const key = spelling(name);
        if (!key.startsWith('utm')) continue;
        use(names.get(key) ?? names.set(key, new Map()).get(key)!, name, l);
        if (!value) continue;
        const byValue = values.get(key) ?? values.set(key, new Map()).get(key)!;
        use(byValue.get(spelling(value)) ?? byValue.set(spelling(value), new Map()).get(spelling(value))!, value, l);
      }
    }
    const count = (uses: Uses, w: string) => uses.get(w)!.length;
    // A parameter is named by its lower-case spelling when the account has one, else its most used.
    const nameOf = (n: Uses) => [...n.keys()].find((w) => w === w.toLowerCase()) ?? [...n.keys()].sort((a, b) => count(n, b) - count(n, a))[0]!;
    const ways = (m: Uses) => [...m.keys()].sort((a, b) => count(m, b) - count(m, a) || (a < b ? -1 : 1)).map((w) => `${w} (${count(m, w)} link${count(m, w) === 1 ? '' : 's'})`);
    /**
     * The links to change (those not written `target`), the least used spelling's first, each with
     * its destination as it would be: the finding says where, not only how many.
     */
    const toFix = (uses: Uses, target: string, fixed: (url: string, spelt: string) => string) => {
      const others = [...uses.keys()].filter((w) => w !== target).sort((a, b) => count(uses, a) - count(uses, b) || (a < b ? -1 : 1));
      const each = others.flatMap((w) => uses.get(w)!.map((l) => ({ l, fixed: fixed(l.url!, w) })));
      const shown = each.slice(0, 10);
      const more = each.length > shown.length ? `; and ${each.length - shown.length} more` : '';
      return {
        record: `${shown.map(({ l }) => named(l)).join(', ')}${each.length > shown.length ? `, and ${each.length - shown.length} more` : ''}`,
        fix: `${shown.map(({ l, fixed: url }) => `${named(l)}: ${url}`).join('; ')}${more}`,
      };
    };
    /** The destination with each query parameter `change` answers for rewritten (name, value), the rest of its text as it is. */
    const rewritten = (url: string, change: (name: string, value: string) => { name?: string; value?: string } | undefined) => {
      const m = /^([^?#]*\?)([^#]*)(#.*)?$/s.exec(url);
      if (!m) return url;
      const decode = (t: string) => {
        try {
          return decodeURIComponent(t.replace(/\+/g, ' '));
        } catch {
          return t;
        }
      };
      const query = m[2]!.split('&').map((part) => {
        const at = part.indexOf('=');
        const [rawName, rawValue] = at < 0 ? [part, ''] : [part.slice(0, at), part.slice(at + 1)];
        const to = change(decode(rawName), decode(rawValue));
        if (!to) return part;
        return `${to.name === undefined ? rawName : encodeURIComponent(to.name)}${at < 0 ? '' : `=${to.value === undefined ? rawValue : encodeURIComponent(to.value)}`}`;
      });
      return `${m[1]}${query.join('&')}${m[3] ?? ''}`;
    };
    for (const [, n] of names) {
      if (n.size < 2) continue;
      const name = nameOf(n);
      const { record, fix } = toFix(n, name, (url, spelt) => rewritten(url, (p) => (p === spelt ? { name } : undefined)));
      add('utm-spelling', { record, message: `the parameter ${name} is written ${n.size} ways: ${ways(n).join(', ')}; analytics count each spelling apart`, fix: `write it ${name}: ${fix}` });
    }
    for (const [key, byValue] of values) {
      const name = nameOf(names.get(key)!);
      for (const [, v] of byValue) {
        if (v.size < 2) continue;
        const most = [...v.keys()].sort((a, b) => count(v, b) - count(v, a) || (a < b ? -1 : 1))[0]!;
        const { record, fix } = toFix(v, most, (url, spelt) => rewritten(url, (p, value) => (spelling(p) === key && value === spelt ? { value: most } : undefined)));
        add('utm-spelling', { record, message: `the value of ${name} is written ${v.size} ways: ${ways(v).join(', ')}`, fix: `write it ${most}: ${fix}` });
      }
    }
  }

  if (on('expiring')) {
    const { days } = setting(policy, 'expiring');
    for (const l of links) {
      if (!l.expiry) continue;
      const at = Date.parse(`${l.expiry.replace(' ', 'T')}${/Z|[+-]\d\d:?\d\d$/.test(l.expiry) ? '' : 'Z'}`);
      if (!Number.isFinite(at) || at <= input.now || at > input.now + days! * DAY_MS) continue;
      const inDays = Math.ceil((at - input.now) / DAY_MS);
      add('expiring', { record: named(l), message: `expires ${l.expiry} UTC, in ${inDays} day${inDays === 1 ? '' : 's'}`, fix: `extend it (\`linkctl link update ${l.id ?? 'ID'} --expiry ...\`) or let it go on purpose` });
    }
  }

  if (on('stale') && input.history) {
    const { days } = setting(policy, 'stale');
    const h = input.history;
    const since = input.now - days! * DAY_MS;
    const covered = Date.parse(h.first) <= since;
    const rests = `history: ${h.snapshots} snapshot${h.snapshots === 1 ? '' : 's'} from ${h.first.slice(0, 10)} to ${h.newest.slice(0, 10)}`;
    if (covered) {
      for (const l of links) {
        if (l.id === undefined) continue;
        const last = h.lastChange.get(l.id);
        if (last === undefined || Date.parse(last) > since) continue;
        add('stale', { record: named(l), message: `no clicks in ${days} days (none since ${last.slice(0, 10)}; ${rests})`, fix: 'delete it, or find out why nobody uses it' });
      }
    }
  }

  if (on('broken') && input.check) {
    for (const l of links) {
      const b = l.id === undefined ? undefined : input.check.broken.get(l.id);
      if (!b) continue;
      add('broken', { record: named(l), message: `its last check (${input.check.finishedAt.slice(0, 16).replace('T', ' ')}) found ${b.destination} ${b.status}${b.error ? `: ${b.error}` : ''}`, fix: 'repoint it at a working page, or delete it; `linkctl check` again to confirm' });
    }
  }

  const rank = (s: Severity) => SEVERITIES.indexOf(s);
  return findings.sort((a, b) => rank(a.severity) - rank(b.severity) || a.rule.localeCompare(b.rule));
}
