/**
 * String formats as anchored ECMAScript regexes over the decoded string. Each one is exact
 * for the grammar of the format it names (RFC 3339 dates with real month lengths and leap
 * years, RFC 1123 host names, dotted-quad IPv4, RFC 4291 IPv6, RFC 3986 URI characters).
 */
import { rx, type ByteRegex } from '../../ir/byte-regex.ts';

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
 * local (`15:59:60-08:00`, `00:59:60+01:00`, `23:59:60Z`; not `23:59:60+01:00`). An automaton
 * must remember the local hour and minute across the fraction (1,440 states at least), so it is
 * built once, as a byte regex (its characters are ASCII, spelled alike raw and in JSON).
 */
export function leapSecondTimes(): ByteRegex {
  if (leapSeconds !== undefined) return leapSeconds;
  const pad = (n: number): string => String(n).padStart(2, '0');
  const clock = (minutes: number): string => `${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}`;
  const fraction = rx.repeat(rx.seq([rx.literal('.'), rx.repeat(rx.byteRanges([0x30, 0x39]), 1, Infinity)]), 0, 1);
  const hours: ByteRegex[] = [];
  for (let h = 0; h < 24; h++) {
    const minutes: ByteRegex[] = [];
    for (let m = 0; m < 60; m++) {
      const local = h * 60 + m;
      const zones = [rx.literal(`+${clock((local + 1) % 1440)}`), rx.literal(`-${clock(1439 - local)}`)];
      if (local === 1439) zones.push(rx.byteRanges([0x5a, 0x5a, 0x7a, 0x7a]));
      minutes.push(rx.seq([rx.literal(`${pad(m)}:60`), fraction, rx.alt(zones)]));
    }
    hours.push(rx.seq([rx.literal(`${pad(h)}:`), rx.alt(minutes)]));
  }
  return (leapSeconds = rx.alt(hours));
}

/** Formats 2020-12 defines that Sieve does not enforce: compiling them is an error. */
export const UNSUPPORTED_FORMATS = new Set(['idn-email', 'idn-hostname', 'iri', 'iri-reference', 'uri-template', 'regex']);

/** Longest host name (RFC 1123), enforced beside the label pattern. */
export const HOSTNAME_MAX_LENGTH = 253;
