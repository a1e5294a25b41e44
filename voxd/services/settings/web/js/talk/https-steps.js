// What the talk page says instead of failing where the browser gives no microphone: over plain
// HTTP from another machine. Browsers give the microphone, service workers and push only to secure
// origins, which on the LAN means HTTPS with voxd's own authority trusted (docs/admin-page.md).
import { el } from "../dom.js";

function platformSteps() {
  return [
    ["iPhone and iPad", [
      "Open this page's address in Safari and tap “Download voxd's certificate” below; allow the download.",
      "Settings → General → VPN & Device Management (or “Profile Downloaded” at the top of Settings) → install the voxd profile.",
      "Settings → General → About → Certificate Trust Settings → switch on full trust for “voxd local authority”.",
      "Open https:// and this page's host name or address (not http://).",
    ]],
    ["Android", [
      "Tap “Download voxd's certificate” below.",
      "Settings → Security → Encryption & credentials → Install a certificate → CA certificate → choose ca.crt.",
      "Open the page with https://.",
    ]],
    ["Windows", [
      "Download the certificate, open it, “Install Certificate…” → Current User → “Trusted Root Certification Authorities”.",
      "Restart the browser and open the page with https://. (Firefox: Settings → Privacy & Security → Certificates → View Certificates → Authorities → Import.)",
    ]],
    ["macOS", [
      "Download the certificate and open it: Keychain Access adds it to the login keychain.",
      "Double-click “voxd local authority”, open Trust, set “When using this certificate” to “Always Trust”.",
      "Open the page with https://.",
    ]],
    ["Linux", [
      "Chromium and Chrome: Settings → Privacy and security → Security → Manage certificates → Authorities → Import ca.crt, trust it for websites.",
      "Firefox: Settings → Privacy & Security → Certificates → View Certificates → Authorities → Import.",
      "Open the page with https://.",
    ]],
  ];
}

export function httpsSteps() {
  const https = `https://${location.host}${location.pathname}${location.hash}`;
  return el("section", { id: "https-needed", class: "notice", "aria-labelledby": "https-heading" },
    el("h2", { id: "https-heading" }, "The microphone needs HTTPS"),
    el("p", {}, "Browsers let a page use the microphone (and show notifications) only over HTTPS, or on the machine voxd runs on. ",
      `This page was opened over ${location.protocol.replace(":", "").toUpperCase()} from another machine, so push-to-talk cannot work here yet.`),
    el("p", {}, "When voxd listens on the network it serves HTTPS with a certificate from its own authority. Trust that authority once on this device, then open ",
      el("code", {}, https), "."),
    el("p", {}, el("small", {}, "If that address does not answer, voxd's HTTPS is off: an administrator turns it on with ",
      el("code", {}, "VOXD_BIND_HOST=0.0.0.0"), " (or ", el("code", {}, "VOXD_TLS=on"), ") in voxd.env and restarts voxd.")),
    el("p", {}, el("a", { href: "/ca.crt", download: "voxd-ca.crt", role: "button", id: "ca-download" }, "Download voxd's certificate")),
    el("p", {}, "Check its fingerprint against ", el("code", {}, "voxd tls show"), " on the server before you trust it."),
    ...platformSteps().map(([platform, steps]) => el("details", {}, el("summary", {}, platform),
      el("ol", {}, steps.map((step) => el("li", {}, step))))),
    el("p", {}, "Typed commands below work without any of this."));
}
