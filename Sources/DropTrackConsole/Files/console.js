// The console's only script (the Content-Security-Policy allows no inline script). It follows the
// app's event stream on the live events page and refreshes the plots; it never sees the API key
// (the session cookie is HttpOnly) and writes text only through textContent.
"use strict";

const MAX_EVENTS = 200;

function describe(name, data) {
  let payload;
  try { payload = JSON.parse(data); } catch (_) { return name + " " + data; }
  if (name === "send") {
    const parts = [
      payload.activityId, payload.event, "v" + payload.version, "→", payload.provider,
      String(payload.status), payload.reason,
    ];
    if (payload.explanation) parts.push("— " + payload.explanation);
    return parts.filter((part) => part !== undefined && part !== "").join(" ");
  }
  return name + " " + JSON.stringify(payload);
}

function followStream(list) {
  const status = document.getElementById("stream-status");
  const source = new EventSource(list.dataset.stream);
  const add = (name, event) => {
    const item = document.createElement("li");
    const time = document.createElement("time");
    time.textContent = new Date().toLocaleTimeString();
    const text = document.createElement("span");
    text.textContent = describe(name, event.data);
    item.className = "event event-" + name;
    try {
      const status = JSON.parse(event.data).status;
      if (typeof status === "number" && (status < 200 || status >= 300)) item.classList.add("bad");
    } catch (_) { /* not JSON: shown as is */ }
    item.append(time, " ", text);
    list.prepend(item);
    while (list.children.length > MAX_EVENTS) list.lastElementChild.remove();
  };
  source.addEventListener("ready", () => { status.textContent = "connected"; status.className = "status live"; });
  for (const name of ["send", "drop", "dropped", "broken", "device"]) {
    source.addEventListener(name, (event) => add(name, event));
  }
  source.onerror = () => { status.textContent = "reconnecting…"; status.className = "status"; };
}

document.addEventListener("DOMContentLoaded", () => {
  const list = document.getElementById("events");
  if (list) followStream(list);
  const plots = document.querySelector("[data-refresh]");
  if (plots) setTimeout(() => location.reload(), Number(plots.dataset.refresh) * 1000);
});
