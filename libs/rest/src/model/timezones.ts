/**
 * IANA time zone names, as NetBox's TimeZoneField accepts them (Python's
 * zoneinfo: every key of the tz database, links included, case-sensitive).
 * ICU lists the canonical zones; the tz database's `backward` links and the
 * `Etc` zones that clients commonly send are added here.
 */
const LINKS = [
  'UTC', 'UCT', 'GMT', 'GMT+0', 'GMT-0', 'GMT0', 'Greenwich', 'Universal', 'Zulu',
  'EST', 'MST', 'HST', 'EST5EDT', 'CST6CDT', 'MST7MDT', 'PST8PDT', 'CET', 'EET', 'MET', 'WET',
  'Cuba', 'Egypt', 'Eire', 'GB', 'GB-Eire', 'Hongkong', 'Iceland', 'Iran', 'Israel', 'Jamaica', 'Japan', 'Kwajalein',
  'Libya', 'NZ', 'NZ-CHAT', 'Navajo', 'PRC', 'Poland', 'Portugal', 'ROC', 'ROK', 'Singapore', 'Turkey', 'W-SU',
  'Etc/GMT', 'Etc/GMT0', 'Etc/GMT+0', 'Etc/GMT-0', 'Etc/Greenwich', 'Etc/UCT', 'Etc/UTC', 'Etc/Universal', 'Etc/Zulu',
  ...Array.from({ length: 12 }, (_, i) => `Etc/GMT+${i + 1}`),
  ...Array.from({ length: 14 }, (_, i) => `Etc/GMT-${i + 1}`),
  'US/Alaska', 'US/Aleutian', 'US/Arizona', 'US/Central', 'US/East-Indiana', 'US/Eastern', 'US/Hawaii',
  'US/Indiana-Starke', 'US/Michigan', 'US/Mountain', 'US/Pacific', 'US/Samoa',
  'Canada/Atlantic', 'Canada/Central', 'Canada/Eastern', 'Canada/Mountain', 'Canada/Newfoundland', 'Canada/Pacific',
  'Canada/Saskatchewan', 'Canada/Yukon', 'Mexico/BajaNorte', 'Mexico/BajaSur', 'Mexico/General',
  'Brazil/Acre', 'Brazil/DeNoronha', 'Brazil/East', 'Brazil/West', 'Chile/Continental', 'Chile/EasterIsland',
  'Australia/ACT', 'Australia/Canberra', 'Australia/LHI', 'Australia/NSW', 'Australia/North', 'Australia/Queensland',
  'Australia/South', 'Australia/Tasmania', 'Australia/Victoria', 'Australia/West', 'Australia/Yancowinna',
  // renamed zones: ICU may list either spelling, the tz database has both
  'Asia/Kolkata', 'Asia/Calcutta', 'Europe/Kyiv', 'Europe/Kiev', 'Asia/Ho_Chi_Minh', 'Asia/Saigon', 'Asia/Kathmandu',
  'Asia/Katmandu', 'Asia/Yangon', 'Asia/Rangoon', 'America/Nuuk', 'America/Godthab', 'Pacific/Kanton', 'Pacific/Enderbury',
  'Atlantic/Faroe', 'Atlantic/Faeroe', 'Pacific/Chuuk', 'Pacific/Truk', 'Pacific/Pohnpei', 'Pacific/Ponape',
  'America/Argentina/Buenos_Aires', 'America/Buenos_Aires', 'America/Indiana/Indianapolis', 'America/Indianapolis',
  'America/Kentucky/Louisville', 'America/Louisville', 'Asia/Dhaka', 'Asia/Dacca', 'Asia/Thimphu', 'Asia/Thimbu',
  'Asia/Ulaanbaatar', 'Asia/Ulan_Bator', 'Asia/Macau', 'Asia/Macao', 'Asia/Chongqing', 'Asia/Chungking',
  'Asia/Tel_Aviv', 'Asia/Istanbul', 'Europe/Istanbul', 'Africa/Asmara', 'Africa/Asmera', 'America/Atikokan',
  'America/Coral_Harbour', 'Europe/Belfast', 'Europe/Tiraspol', 'Europe/Nicosia', 'Asia/Nicosia', 'Pacific/Samoa',
  'Pacific/Yap', 'Pacific/Johnston', 'Antarctica/South_Pole', 'Arctic/Longyearbyen', 'Atlantic/Jan_Mayen',
  'America/Ciudad_Juarez', 'Europe/Uzhgorod', 'Europe/Zaporozhye',
];

let known: Set<string> | null = null;

/** Whether `name` is a time zone key, spelled exactly (case included) as the tz database spells it. */
export function isTimeZone(name: string): boolean {
  known ??= new Set([...Intl.supportedValuesOf('timeZone'), ...LINKS]);
  return known.has(name);
}

/** DRF's TimeZoneSerializerField message. */
export const TIME_ZONE_MESSAGE = 'A valid timezone is required.';
