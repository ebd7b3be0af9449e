/**
 * String formats as anchored ECMAScript regexes over the decoded string. Each one is exact
 * for the grammar of the format it names (RFC 3339 dates with real month lengths and leap
 * years, RFC 1123 host names, dotted-quad IPv4, RFC 4291 IPv6, RFC 3986 URI characters).
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
// RFC 3986, appendix A.
const PCT = '%[0-9a-fA-F]{2}';
const UNRESERVED = '[A-Za-z0-9\\-._~]';
const SUB_DELIMS = "[!$&'()*+,;=]";
const PCHAR = `(?:${UNRESERVED}|${PCT}|${SUB_DELIMS}|[:@])`;
const SEGMENT = `${PCHAR}*`;
const SEGMENT_NZ = `${PCHAR}+`;
const SEGMENT_NZ_NC = `(?:${UNRESERVED}|${PCT}|${SUB_DELIMS}|@)+`;
const USERINFO = `(?:${UNRESERVED}|${PCT}|${SUB_DELIMS}|:)*`;
const IP_LITERAL = `\\[(?:${'(?:IPV6)'}|v[0-9a-fA-F]+\\.(?:${UNRESERVED}|${SUB_DELIMS}|:)+)\\]`;
const REG_NAME = `(?:${UNRESERVED}|${PCT}|${SUB_DELIMS})*`;
const AUTHORITY = `(?:${USERINFO}@)?(?:${IP_LITERAL}|${'(?:IPV4)'}|${REG_NAME})(?::\\d*)?`;
const PATH_ABEMPTY = `(?:/${SEGMENT})*`;
const PATH_ABSOLUTE = `/(?:${SEGMENT_NZ}(?:/${SEGMENT})*)?`;
const PATH_ROOTLESS = `${SEGMENT_NZ}(?:/${SEGMENT})*`;
const PATH_NOSCHEME = `${SEGMENT_NZ_NC}(?:/${SEGMENT})*`;
const QUERY = `(?:${PCHAR}|[/?])*`;
const TAIL = `(?:\\?${QUERY})?(?:#${QUERY})?`;
const URI_TEMPLATE = `[a-zA-Z][a-zA-Z0-9+.\\-]*:(?://${AUTHORITY}${PATH_ABEMPTY}|${PATH_ABSOLUTE}|${PATH_ROOTLESS}|)${TAIL}`;
const RELATIVE_TEMPLATE = `(?://${AUTHORITY}${PATH_ABEMPTY}|${PATH_ABSOLUTE}|${PATH_NOSCHEME}|)${TAIL}`;

const ATOM = "[a-zA-Z0-9!#$%&'*+/=?^_`{|}~-]+";
const URI = URI_TEMPLATE.replace('(?:IPV6)', `(?:${IPV6})`).replace('(?:IPV4)', IPV4);

/** Regex source for each supported format, or undefined. */
export const FORMAT_PATTERNS: Readonly<Record<string, string>> = {
  date: DATE,
  time: TIME,
  'date-time': `${DATE}[Tt]${TIME}`,
  duration: DURATION,
  // A quoted local part holds printable ASCII (RFC 5321's qtextSMTP and quoted-pairSMTP).
  email: `(?:${ATOM}(?:\\.${ATOM})*|"(?:[ !#-\\[\\]-~]|\\\\[ -~])*")@(?:${HOSTNAME}|\\[${IPV4}\\]|\\[IPv6:(?:${IPV6})\\])`,
  hostname: HOSTNAME,
  ipv4: IPV4,
  ipv6: IPV6,
  uuid: '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}',
  uri: URI,
  'uri-reference': `(?:${URI}|${RELATIVE_TEMPLATE.replace('(?:IPV6)', IPV6).replace('(?:IPV4)', IPV4)})`,
  'json-pointer': '(?:/(?:[^~/]|~[01])*)*',
  'relative-json-pointer': '(?:0|[1-9]\\d*)(?:#|(?:/(?:[^~/]|~[01])*)*)',
};

/**
 * The formats whose language here is exactly the format's, so that its complement is the
 * format's too (`not: {format}`). Not hostname, whose A-labels (`xn--…`, valid when their
 * Punycode is) are refused, nor email, whose domain labels are hostname's and whose quoted
 * local part takes any character RFC 5321 does or does not allow: a complement would accept
 * the valid A-labels.
 */
export const EXACT_FORMATS = new Set(Object.keys(FORMAT_PATTERNS).filter((format) => format !== 'hostname' && format !== 'email'));

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
export const UNSUPPORTED_FORMATS = new Set(['idn-email', 'idn-hostname', 'iri', 'iri-reference', 'uri-template', 'regex']);

/** Longest host name (RFC 1123), enforced beside the label pattern. */
export const HOSTNAME_MAX_LENGTH = 253;
