/**
 * String formats as anchored ECMAScript regexes over the decoded string. Each one is exact
 * for the grammar of the format it names (RFC 3339 dates with real month lengths and leap
 * years, RFC 1123 host names, dotted-quad IPv4, RFC 4291 IPv6, RFC 3986 URIs, RFC 3987 IRIs, RFC 6570 templates).
 */
import { rx, type ByteAutomaton, type ByteRegex } from '../../ir/byte-regex.ts';

const YEAR = '\\d{4}';
// Divisible by 4 and not by 100, or by 400 (0000 too: RFC 3339 years are proleptic Gregorian).
const LEAP_YEAR = '(?:\\d{2}(?:0[48]|[2468][048]|[13579][26])|(?:00|0[48]|[2468][048]|[13579][26])00)';
const DATE = `(?:${YEAR}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|02-(?:0[1-9]|1\\d|2[0-8]))|${LEAP_YEAR}-02-29)`;
const OFFSET = '(?:[zZ]|[+-](?:[01]\\d|2[0-3]):[0-5]\\d)';
// Times without a leap second; `leapSecondTimes` adds those.
const TIME = `(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?${OFFSET}`;
const DURATION_TIME = '(?:\\d+H(?:\\d+M(?:\\d+S)?)?|\\d+M(?:\\d+S)?|\\d+S)';
const DURATION = `P(?:\\d+W|(?:\\d+Y(?:\\d+M(?:\\d+D)?)?|\\d+M(?:\\d+D)?|\\d+D)(?:T${DURATION_TIME})?|T${DURATION_TIME})`;
// RFC 1123 labels (at most 63 characters, no hyphen at either end); "--" in positions 3-4
// (IDNA A-labels such as xn--) is not accepted, since Punycode validity is not regular.
const A = '[a-zA-Z0-9]';
const H = '[a-zA-Z0-9-]';
const LABEL = `${A}(?:${A}|${H}${A}|${H}(?:${A}${A}|-${A})|${H}(?:${A}${H}|-${A})${H}{0,58}${A})?`;
const HOSTNAME = `${LABEL}(?:\\.${LABEL})*`;
// The labels a host name may have: those above, and any A-label candidate (`xn--` in any
// case, then letters, digits and hyphens, at most 63 in all), which is a label when its
// Punycode is valid, which no regex here tells.
const MAYBE_A_LABEL = `[xX][nN]--${H}{0,59}`;
const ANY_HOSTNAME = `(?:${LABEL}|${MAYBE_A_LABEL})(?:\\.(?:${LABEL}|${MAYBE_A_LABEL}))*`;
const OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
const IPV4 = `${OCTET}(?:\\.${OCTET}){3}`;
const H16 = '[0-9a-fA-F]{1,4}';
const LS32 = `(?:${H16}:${H16}|${IPV4})`;
const IPV6 = [
  `(?:${H16}:){6}${LS32}`,
  `::(?:${H16}:){5}${LS32}`,
  `(?:${H16})?::(?:${H16}:){4}${LS32}`,
  `(?:(?:${H16}:){0,1}${H16})?::(?:${H16}:){3}${LS32}`,
  `(?:(?:${H16}:){0,2}${H16})?::(?:${H16}:){2}${LS32}`,
  `(?:(?:${H16}:){0,3}${H16})?::${H16}:${LS32}`,
  `(?:(?:${H16}:){0,4}${H16})?::${LS32}`,
  `(?:(?:${H16}:){0,5}${H16})?::${H16}`,
  `(?:(?:${H16}:){0,6}${H16})?::`,
].join('|');
// Characters beyond ASCII that RFC 3987 allows in IRIs (ucschar), and private-use ones
// (iprivate), as regex class ranges.
const UCSCHAR =
  '\\u00A0-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFEF' +
  Array.from({ length: 13 }, (_, plane) => `\\u{${(plane + 1).toString(16)}0000}-\\u{${(plane + 1).toString(16)}FFFD}`).join('') +
  '\\u{E1000}-\\u{EFFFD}';
const IPRIVATE = '\\uE000-\\uF8FF\\u{F0000}-\\u{FFFFD}\\u{100000}-\\u{10FFFD}';
const PCT = '%[0-9a-fA-F]{2}';

// RFC 3986, appendix A: URIs, and relative references. `wide`: RFC 3987's IRIs, the same
// grammar with ucschar among the unreserved characters (IP literals aside) and iprivate in
// a query. (ABNF literals ignore case: an IPvFuture literal may begin with "V".)
function uriPatterns(wide: boolean): { readonly absolute: string; readonly relative: string } {
  const unreserved = `[A-Za-z0-9\\-._~${wide ? UCSCHAR : ''}]`;
  const subDelims = "[!$&'()*+,;=]";
  const pchar = `(?:${unreserved}|${PCT}|${subDelims}|[:@])`;
  const segment = `${pchar}*`;
  const segmentNz = `${pchar}+`;
  const segmentNzNc = `(?:${unreserved}|${PCT}|${subDelims}|@)+`;
  const userinfo = `(?:${unreserved}|${PCT}|${subDelims}|:)*`;
  const ipLiteral = `\\[(?:${IPV6}|[vV][0-9a-fA-F]+\\.(?:[A-Za-z0-9\\-._~]|${subDelims}|:)+)\\]`;
  const regName = `(?:${unreserved}|${PCT}|${subDelims})*`;
  const authority = `(?:${userinfo}@)?(?:${ipLiteral}|${IPV4}|${regName})(?::\\d*)?`;
  const pathAbempty = `(?:/${segment})*`;
  const pathAbsolute = `/(?:${segmentNz}(?:/${segment})*)?`;
  const query = `(?:${pchar}|[/?${wide ? IPRIVATE : ''}])*`;
  const fragment = `(?:${pchar}|[/?])*`;
  const tail = `(?:\\?${query})?(?:#${fragment})?`;
  return {
    absolute: `[a-zA-Z][a-zA-Z0-9+.\\-]*:(?://${authority}${pathAbempty}|${pathAbsolute}|${segmentNz}(?:/${segment})*|)${tail}`,
    relative: `(?://${authority}${pathAbempty}|${pathAbsolute}|${segmentNzNc}(?:/${segment})*|)${tail}`,
  };
}
const URI = uriPatterns(false);
const IRI = uriPatterns(true);

// RFC 6570: literals (printable ASCII but space and "%<>\\^`{|}, save in a percent-encoding,
// the apostrophe allowed as the JSON Schema test suite reads the RFC; beyond ASCII, ucschar and
// iprivate) and expressions: an optional operator and a list of variables, each with a prefix
// length below 10,000 or an explosion.
const VARCHAR = `(?:[A-Za-z0-9_]|${PCT})`;
const VARSPEC = `${VARCHAR}(?:\\.?${VARCHAR})*(?::[1-9]\\d{0,3}|\\*)?`;
const TEMPLATE_LITERAL = `(?:[!#$&'()*+,\\-./0-9:;=?@A-Z\\[\\]_a-z~${UCSCHAR}${IPRIVATE}]|${PCT})`;
const TEMPLATE_EXPRESSION = `\\{[+#./;?&=,!@|]?${VARSPEC}(?:,${VARSPEC})*\\}`;

const ATOM = "[a-zA-Z0-9!#$%&'*+/=?^_`{|}~-]+";

// format "regex": the patterns that ECMAScript (with the u flag, as JSON Schema validators
// compile them), Python's re and the regex crates all read, groups nested at most
// REGEX_DEPTH deep (a regular language): literals but the syntax characters; `.`; escapes of
// classes (`\d`, `\w`, `\s` and their complements), of syntax characters and `/`, of
// control characters, `\xHH` and `\uHHHH`; classes of such literals and escapes, with ranges
// within the digits or the letters of one case (`-` first or last, else escaped; `^` only
// escaped, `[^]` is no class to Python; no `[`, `&`, `~` or `|`, which some engines read as
// set operations); groups, capturing or `(?:`;
// anchors `^`, `$`, `\b`, `\B`; and quantifiers `*`, `+`, `?`, `{n}`, `{n,}` and `{n,m}`
// (m with more digits than n, or 1-2 digits each, or a greater first digit: n ≤ m), lazy
// or not. Valid patterns outside this are refused (backreferences, named groups, lookaround,
// other escapes or ranges, deeper groups), never invalid ones allowed.
const REGEX_DEPTH = 4;
const REGEX_SYNTAX = String.raw`\^$\\.*+?()[\]{}|`;
const REGEX_ESCAPE = String.raw`\\(?:[dDwWsSnrtfv]|[${REGEX_SYNTAX}/]|x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4})`;
const REGEX_CLASS_ESCAPE = String.raw`\\(?:[dDwWsSnrtfv]|[${REGEX_SYNTAX}/\-]|x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4})`;
// Ranges within the digits, the lowercase or the uppercase letters, the first no greater.
const regexRanges = (alphabet: string): string[] => [...alphabet].map((c, i) => (i === alphabet.length - 1 ? `${c}-${c}` : `${c}-[${c}-${alphabet.at(-1)}]`));
const REGEX_RANGE = ['0123456789', 'abcdefghijklmnopqrstuvwxyz', 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'].flatMap(regexRanges).join('|');
const REGEX_CLASS_ITEM = String.raw`(?:${REGEX_RANGE}|[^\\\]\[\-^&~|]|${REGEX_CLASS_ESCAPE})`;
const REGEX_CLASS = String.raw`\[\^?(?:-|-?${REGEX_CLASS_ITEM}+-?)\]`;
// {n,m} with n ≤ m: fewer digits than m; one or two digits each, digit by digit; three or
// four, a smaller first digit.
const regexCounts = (): string => {
  const n = String.raw`(?:0|[1-9]\d{0,3})`;
  const fewer = [String.raw`\d,[1-9]\d{1,3}`, String.raw`[1-9]\d,[1-9]\d{2,3}`, String.raw`[1-9]\d{2},[1-9]\d{3}`];
  const digit = (d: number): string => (d === 9 ? '9' : `[${d}-9]`);
  const one = Array.from({ length: 10 }, (_, d) => `${d},${digit(d)}`);
  const two = Array.from({ length: 9 }, (_, i) => i + 1).map(
    (d) => `${d}(?:${Array.from({ length: 10 }, (_, e) => `${e},(?:${d}${digit(e)}${d < 9 ? `|${digit(d + 1)}\\d` : ''})`).join('|')})`,
  );
  const longer = [2, 3].flatMap((more) => Array.from({ length: 8 }, (_, d) => `${d + 1}\\d{${more}},${digit(d + 2)}\\d{${more}}`));
  return String.raw`(?:[*+?]|\{(?:${n},?|${[...fewer, ...one, ...two, ...longer].join('|')})\})\??`;
};
const REGEX_QUANTIFIER = regexCounts();
const regexPattern = (depth: number): string => {
  const group = depth === 0 ? '' : String.raw`|\((?:\?:)?${regexPattern(depth - 1)}\)`;
  const term = String.raw`(?:\^|\$|\\[bB]|(?:[^${REGEX_SYNTAX}]|\.|${REGEX_ESCAPE}|${REGEX_CLASS}${group})(?:${REGEX_QUANTIFIER})?)`;
  return `(?:${term}|\\|)*`;
};

// An email address whose domain's host names are `hostname`'s.
const email = (hostname: string): string => `(?:${ATOM}(?:\\.${ATOM})*|"(?:[ !#-\\[\\]-~]|\\\\[ -~])*")@(?:${hostname}|\\[${IPV4}\\]|\\[IPv6:(?:${IPV6})\\])`;

// A map looked up by names a schema writes: no prototype, so `constructor` or `toString` is
// no entry.
function byName<T>(entries: Record<string, T>): Readonly<Record<string, T>> {
  return Object.assign(Object.create(null) as Record<string, T>, entries);
}

/** Regex source for each supported format, or undefined. */
export const FORMAT_PATTERNS: Readonly<Record<string, string>> = byName({
  date: DATE,
  time: TIME,
  'date-time': `${DATE}[Tt]${TIME}`,
  duration: DURATION,
  // A quoted local part holds printable ASCII (RFC 5321's qtextSMTP and quoted-pairSMTP).
  email: email(HOSTNAME),
  hostname: HOSTNAME,
  ipv4: IPV4,
  ipv6: IPV6,
  uuid: '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}',
  uri: URI.absolute,
  'uri-reference': `(?:${URI.absolute}|${URI.relative})`,
  iri: IRI.absolute,
  'iri-reference': `(?:${IRI.absolute}|${IRI.relative})`,
  'json-pointer': '(?:/(?:[^~/]|~[01])*)*',
  'relative-json-pointer': '(?:0|[1-9]\\d*)(?:#|(?:/(?:[^~/]|~[01])*)*)',
  'uri-template': `(?:${TEMPLATE_LITERAL}|${TEMPLATE_EXPRESSION})*`,
  regex: regexPattern(REGEX_DEPTH),
});

/**
 * The formats whose language here is exactly the format's, so that its complement is the
 * format's too (`not: {format}`). Not hostname, whose A-labels (`xn--…`, valid when their
 * Punycode is) are refused, nor email, whose domain labels are hostname's and whose quoted
 * local part takes any character RFC 5321 does or does not allow: a complement would accept
 * the valid A-labels.
 */
export const EXACT_FORMATS = new Set(Object.keys(FORMAT_PATTERNS).filter((format) => format !== 'hostname' && format !== 'email' && format !== 'regex'));

/**
 * The formats enforced only in part, each with the pattern of a superset of its strings: one
 * outside it is surely not in the format; one inside that the format's pattern refuses may be
 * (host names with an A-label, email addresses at them).
 */
export const FORMAT_SUPERSETS: Readonly<Record<string, string>> = byName({ hostname: ANY_HOSTNAME, email: email(ANY_HOSTNAME) });

/**
 * The formats a `not` can exclude: the exact ones (their complement), and those with a
 * superset (the strings outside it; an undecided one is refused there as in the format).
 */
export const COMPLEMENTED_FORMATS = new Set([...EXACT_FORMATS, ...Object.keys(FORMAT_SUPERSETS)]);

/**
 * Whether a string the pattern of `format` refuses is in the format anyway, for the formats
 * with no superset: false (surely not: every other format), true (a regex ECMAScript reads
 * with and without the u flag) or undefined (not known: a regex only one of the two reads;
 * any string of an idn- format but its ASCII twin's).
 */
export function formatAnswer(format: string, value: string): boolean | undefined {
  if (format === 'regex') {
    const reads = [undefined, 'u'].map((flags) => {
      try {
        new RegExp(value, flags);
        return true;
      } catch {
        return false;
      }
    });
    return reads[0] === reads[1] ? reads[0] : undefined;
  }
  return UNSUPPORTED_FORMATS.has(format) ? undefined : false;
}

/** The formats whose pattern ends in a time: it may also end in `leapSecondTimes()`. */
export const TIME_FORMATS = new Set(['time', 'date-time']);

let leapSeconds: ByteRegex | undefined;

/**
 * Times with a leap second (`:60`), exactly those that are 23:59:60 in UTC (RFC 3339 5.7):
 * for each local hour and minute, the one offset of each sign that makes it 23:59 UTC. Local
 * minus offset is 23:59 (mod 24 h), so `+offset` is local + 1 minute and `-offset` is 23:59 −
 * local (`15:59:60-08:00`, `00:59:60+01:00`, `23:59:60Z`; not `23:59:60+01:00`). Any automaton
 * must remember the local hour and minute from the minute's last digit to the offset (1,440
 * states at each of the six places in between), so this one is built once, as the minimal
 * DFA (about 11,000 states; the union of 2,881 strings as a regex was 30,000 NFA states to
 * build and key per compile). Its characters are ASCII, spelled alike raw and in JSON.
 */
export function leapSecondTimes(): ByteRegex {
  return (leapSeconds ??= rx.automaton(leapSecondAutomaton()));
}

const DIGITS = [0x30, 0x39] as const;

// The minimal DFA, state by state: the local time is read as a trie (hh, ':', m, m), each
// local time then has its own run of states for ':60', the fraction and the offset's sign,
// and the offset's digits are a trie of what is left to read (every offset ends alike).
function leapSecondAutomaton(): ByteAutomaton {
  const edges: number[][] = [];
  const accepting: boolean[] = [];
  const state = (accepts = false): number => {
    accepting.push(accepts);
    return edges.push([]) - 1;
  };
  const edge = (from: number, lo: number, hi: number, to: number): void => {
    edges[from]!.push(lo, hi, to);
  };
  const byte = (c: string): number => c.charCodeAt(0);
  const start = state();
  // The states left to read each rest of an offset (`"15:59"`, `"5:59"`, ..., `""`: the end).
  const rest = new Map<string, number>([['', state(true)]]);
  const toRead = (text: string): number => {
    let to = rest.get(text);
    if (to === undefined) {
      to = state();
      rest.set(text, to);
      edge(to, byte(text[0]!), byte(text[0]!), toRead(text.slice(1)));
    }
    return to;
  };
  // The trie of "hh:mm" (child states by the next character).
  const child = new Map<string, number>();
  const after = (prefix: string): number => {
    let to = child.get(prefix);
    if (to === undefined) {
      to = state();
      child.set(prefix, to);
      const from = prefix.length === 1 ? start : after(prefix.slice(0, -1));
      const c = byte(prefix[prefix.length - 1]!);
      edge(from, c, c, to);
    }
    return to;
  };
  const pad = (n: number): string => String(n).padStart(2, '0');
  const clock = (minutes: number): string => `${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}`;
  for (let local = 0; local < 1440; local++) {
    const colon = state();
    const six = state();
    const second = state(); // after ':60'
    const dot = state();
    const fraction = state();
    edge(after(clock(local)), byte(':'), byte(':'), colon);
    edge(colon, byte('6'), byte('6'), six);
    edge(six, byte('0'), byte('0'), second);
    edge(second, byte('.'), byte('.'), dot);
    edge(dot, DIGITS[0], DIGITS[1], fraction);
    edge(fraction, DIGITS[0], DIGITS[1], fraction);
    // The offset: the one of each sign that makes it 23:59 UTC (and Z for 23:59 itself).
    const plus = toRead(clock((local + 1) % 1440));
    const minus = toRead(clock(1439 - local));
    for (const from of [second, fraction]) {
      edge(from, byte('+'), byte('+'), plus);
      edge(from, byte('-'), byte('-'), minus);
      if (local === 1439) {
        edge(from, byte('Z'), byte('Z'), rest.get('')!);
        edge(from, byte('z'), byte('z'), rest.get('')!);
      }
    }
  }
  for (const list of edges) sortTriples(list);
  return { edges, accepting };
}

// Sorts an edge list's [lo, hi, to] triples by lo.
function sortTriples(list: number[]): void {
  const triples: [number, number, number][] = [];
  for (let i = 0; i < list.length; i += 3) triples.push([list[i]!, list[i + 1]!, list[i + 2]!]);
  triples.sort((a, b) => a[0] - b[0]);
  list.splice(0, list.length, ...triples.flat());
}

/** Formats 2020-12 defines that Sieve does not enforce: compiling them is an error. */
export const UNSUPPORTED_FORMATS = new Set(['idn-email', 'idn-hostname']);

/** Of those, the formats their ASCII strings are in: an ASCII host name is an idn-hostname. */
export const ASCII_TWINS: Readonly<Record<string, string>> = byName({ 'idn-hostname': 'hostname', 'idn-email': 'email' });

/** Longest host name (RFC 1123), enforced beside the label pattern. */
export const HOSTNAME_MAX_LENGTH = 253;
