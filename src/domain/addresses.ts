// What kind of address a host or URL is: loopback hosts, http(s) URLs, and how a URL may be shown.

const LOOPBACK_HOSTS = new Set(["localhost", "::1", "[::1]"]);

export function isLoopbackHost(host: string): boolean {
  return LOOPBACK_HOSTS.has(host) || /^127(\.\d{1,3}){3}$/.test(host);
}

export function isHttpUrl(value: string): boolean {
  return URL.canParse(value) && ["http:", "https:"].includes(new URL(value).protocol);
}

/** A URL as it may be shown: as written, but for any user and password it holds (`http://***@host/`). */
export function withoutCredentials(target: string): string {
  if (!URL.canParse(target)) return target.replace(/\/\/[^/@]*@/, "//***@");
  const url = new URL(target);
  if (url.username === "" && url.password === "") return target;
  url.username = "***";
  url.password = "";
  return url.toString();
}
