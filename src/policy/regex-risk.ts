/**
 * Whether a regular expression can backtrack without limit: `^([a-z0-9]+-?)+$` takes 14 s on 28
 * letters and a `_` (issue 50), in every engine that backtracks, V8's included. JavaScript cannot
 * stop a running match, so a policy's pattern is judged when the policy is loaded, and refused
 * when it repeats something that itself repeats or chooses (the shapes behind such blow-ups), or
 * refers back to a group. A repetition whose every turn starts with a character nothing else in it
 * can match (`(-[a-z0-9]+)*`, `(\.[a-z]+)+`) is unambiguous, and kept.
 */

/** A parsed piece of a pattern: what one position can match, or a group of pieces. */
type Node =
  | { kind: 'atom'; source: string; literal?: string; min: number; max: number }
  | { kind: 'group'; body: Node[][]; min: number; max: number };

/** The reason a pattern can backtrack without limit, or undefined when it cannot. */
export function backtrackingRisk(pattern: string): string | undefined {
  let i = 0;
  const problems: string[] = [];

  /** A quantifier at `i` (`*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}`, each maybe lazy): its bounds, 1 and 1 without one. */
  const quantifier = (): { min: number; max: number } => {
    const c = pattern[i];
    let bounds = { min: 1, max: 1 };
    if (c === '*' || c === '+' || c === '?') (bounds = { min: c === '+' ? 1 : 0, max: c === '?' ? 1 : Infinity }), i++;
    else if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i));
      if (!m) return bounds; // a literal brace
      bounds = { min: Number(m[1]), max: m[2] === undefined ? Number(m[1]) : m[3] === '' ? Infinity : Number(m[3]) };
      i += m[0].length;
    } else return bounds;
    if (pattern[i] === '?') i++; // lazy: the same backtracking
    return bounds;
  };

  /** Alternatives until `)` or the end. */
  const sequence = (): Node[][] => {
    const branches: Node[][] = [[]];
    while (i < pattern.length && pattern[i] !== ')') {
      const c = pattern[i]!;
      if (c === '|') {
        i++;
        branches.push([]);
        continue;
      }
      let node: Node;
      if (c === '(') {
        i++;
        const look = /^\?(?:<?[=!])/.exec(pattern.slice(i));
        const named = /^\?<[A-Za-z_$][\w$]*>/.exec(pattern.slice(i));
        if (look) i += look[0].length;
        else if (named) i += named[0].length;
        else if (pattern.startsWith('?:', i)) i += 2;
        const body = sequence();
        i++; // ')'
        node = { kind: 'group', body, min: 1, max: 1 };
      } else if (c === '[') {
        const start = i;
        i++;
        if (pattern[i] === '^') i++;
        if (pattern[i] === ']') i++;
        while (i < pattern.length && pattern[i] !== ']') i += pattern[i] === '\\' ? 2 : 1;
        i++;
        node = { kind: 'atom', source: pattern.slice(start, i), min: 1, max: 1 };
      } else if (c === '\\') {
        const escape = /^\\(?:k<[^>]*>|[1-9]\d*|[pP]\{[^}]*\}|x[0-9a-fA-F]{2}|u\{?[0-9a-fA-F]+\}?|c[A-Za-z]|.)/su.exec(pattern.slice(i))![0];
        if (/^\\(?:[1-9]|k<)/.test(escape)) problems.push(`it refers back to a group (${escape}), which can take time without limit`);
        i += escape.length;
        // An escaped punctuation character is that character.
        node = { kind: 'atom', source: escape, literal: /^\\[^A-Za-z0-9]$/.test(escape) ? escape[1] : undefined, min: 1, max: 1 };
      } else if (c === '^' || c === '$') {
        i++;
        continue;
      } else {
        i++;
        node = { kind: 'atom', source: c === '.' ? '.' : c.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&'), literal: c === '.' ? undefined : c, min: 1, max: 1 };
      }
      Object.assign(node, quantifier());
      branches[branches.length - 1]!.push(node);
    }
    return branches;
  };

  /** Every atom under a list of branches, and whether any repeats or the branches choose. */
  const atoms = (branches: Node[][]): Array<Extract<Node, { kind: 'atom' }>> => branches.flat().flatMap((n) => (n.kind === 'atom' ? [n] : atoms(n.body)));
  /** Whether what the branches match can be of more than one length (a repetition, an optional part). */
  const varies = (branches: Node[][]): boolean => branches.flat().some((n) => n.min !== n.max || (n.kind === 'group' && varies(n.body)));
  const chooses = (branches: Node[][]): boolean => branches.length > 1 || branches.flat().some((n) => n.kind === 'group' && chooses(n.body));
  const matches = (atom: Extract<Node, { kind: 'atom' }>, char: string): boolean => {
    try {
      return new RegExp(`^(?:${atom.source})$`, 'u').test(char);
    } catch {
      return true; // not judged: counted as overlapping
    }
  };
  /** Each turn starts with a literal that nothing after it in the turn can match: the turns cannot be split two ways. */
  const unambiguous = (body: Node[][]): boolean => {
    if (body.length !== 1) return false;
    const [first, ...rest] = body[0]!;
    if (!first || first.kind !== 'atom' || first.literal === undefined || first.min !== 1 || first.max !== 1) return false;
    return !atoms([rest]).some((a) => matches(a, first.literal!));
  };

  const check = (branches: Node[][]): void => {
    for (const node of branches.flat()) {
      if (node.kind !== 'group') continue;
      if (node.max > 1 && (varies(node.body) || chooses(node.body)) && !unambiguous(node.body)) {
        problems.push(`it repeats a group that ${varies(node.body) ? 'matches text of varying length' : 'chooses between alternatives'}, which can backtrack without limit on a long alias that does not match`);
      }
      check(node.body);
    }
  };
  check(sequence());
  return problems[0];
}
