/**
 * String formats as anchored ECMAScript regexes over the decoded string. Each one is exact
 * for the grammar of the format it names (RFC 3339 dates with real month lengths and leap
 * years, RFC 1123 host names, dotted-quad IPv4, RFC 4291 IPv6, RFC 3986 URI characters).
 */

const YEAR = '\\d{4}';
const LEAP_YEAR = '(?:\\d{2}(?:0[48]|[2468][048]|[13579][26])|(?:0[48]|[2468][048]|[13579][26])00)';
const DATE = `(?:${YEAR}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|02-(?:0[1-9]|1\\d|2[0-8]))|${LEAP_YEAR}-02-29)`;
const OFFSET = '(?:[zZ]|[+-](?:[01]\\d|2[0-3]):[0-5]\\d)';
// A leap second (:60) only at 23:59 UTC; Sieve accepts it with a zero offset only.
const TIME = `(?:(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?${OFFSET}|23:59:60(?:\\.\\d+)?(?:[zZ]|[+-]00:00))`;
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
  email: `(?:${ATOM}(?:\\.${ATOM})*|"(?:[^"\\\\]|\\\\.)*")@(?:${HOSTNAME}|\\[${IPV4}\\]|\\[IPv6:(?:${IPV6})\\])`,
  hostname: HOSTNAME,
  ipv4: IPV4,
  ipv6: IPV6,
  uuid: '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}',
  uri: URI,
  'uri-reference': `(?:${URI}|${RELATIVE_TEMPLATE.replace('(?:IPV6)', IPV6).replace('(?:IPV4)', IPV4)})`,
  'json-pointer': '(?:/(?:[^~/]|~[01])*)*',
  'relative-json-pointer': '(?:0|[1-9]\\d*)(?:#|(?:/(?:[^~/]|~[01])*)*)',
};

/** Formats 2020-12 defines that Sieve does not enforce: compiling them is an error. */
export const UNSUPPORTED_FORMATS = new Set(['idn-email', 'idn-hostname', 'iri', 'iri-reference', 'uri-template', 'regex']);

/** Longest host name (RFC 1123), enforced beside the label pattern. */
export const HOSTNAME_MAX_LENGTH = 253;
