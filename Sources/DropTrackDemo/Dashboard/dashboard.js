// The DropTrack demo dashboard, part one: renders what the simulated phones hold (GET /demo/state)
// and the current order. Part two (dashboard-live.js) sends the buttons and shows the live log. No
// build step, no dependencies.
"use strict";

const $ = (id) => document.getElementById(id);

function text(id, value) {
  $(id).textContent = value == null ? "" : String(value);
}

// "1 push", "2 pushes".
function counted(count, one, many) {
  return `${count} ${count === 1 ? one : many}`;
}

// How long iOS shows an alert's banner before it slides away.
const bannerSeconds = 5;
// The alert last shown (activity and text), so a refresh does not show it again once it went.
let bannerShown = "";
let bannerTimer = null;

function showBanner(activity) {
  const banner = $("banner");
  if (!activity || !activity.lastAlert) {
    banner.classList.add("hidden");
    return;
  }
  const key = `${activity.id}|${activity.lastAlert}`;
  if (key === bannerShown) return;
  bannerShown = key;
  banner.textContent = activity.lastAlert;
  banner.classList.remove("hidden");
  clearTimeout(bannerTimer);
  bannerTimer = setTimeout(() => banner.classList.add("hidden"), bannerSeconds * 1000);
}

function segments(container, lit, count) {
  container.replaceChildren();
  for (let index = 0; index < count; index += 1) {
    const segment = document.createElement("span");
    if (index < lit) segment.className = "lit";
    container.appendChild(segment);
  }
}

function renderIPhone(iphone) {
  text("iphone-received", `${counted(iphone.received, "push", "pushes")} received`);
  $("la-enabled").checked = iphone.liveActivitiesEnabled;
  const shown = iphone.activities.filter((activity) => activity.phase !== "dismissed");
  const activity = shown[shown.length - 1];
  const card = $("card");
  if (!activity || !activity.view) {
    card.className = "card empty";
    card.dataset.phase = "none";
    text("card-status", "No Live Activity");
    ["card-order", "card-phase", "card-eta", "card-stops", "card-courier", "island-trailing", "expanded-status",
      "expanded-eta", "expanded-courier", "expanded-stops", "minimal-percent"].forEach((id) => text(id, ""));
    segments($("card-segments"), 0, 7);
    segments($("expanded-segments"), 0, 7);
    $("card-action").classList.add("hidden");
    showBanner(null);
    return;
  }
  const view = activity.view;
  card.className = "card";
  card.dataset.phase = activity.phase;
  text("card-order", `Order ${activity.orderId}`);
  text("card-phase", activity.phase === "active" ? "" : activity.phase);
  text("card-status", view.status);
  segments($("card-segments"), view.litSegments, view.segmentCount);
  text("card-eta", view.eta);
  text("card-stops", view.stops);
  text("card-courier", view.courier);
  $("card-action").classList.toggle("hidden", !view.action || activity.phase !== "active");
  text("card-action", view.action || "");
  $("card-courier").classList.toggle("reassigned", view.reassigned);
  text("island-trailing", view.eta);
  text("expanded-status", view.status);
  text("expanded-eta", view.eta);
  segments($("expanded-segments"), view.litSegments, view.segmentCount);
  text("expanded-courier", view.courierCompact);
  text("expanded-stops", view.stops);
  text("minimal-percent", view.percent);
  showBanner(activity);
}

// The iPhone app's own log (DropTrackLive's sync events, tokens by fingerprint) and its last relaunch.
function renderApp(app) {
  text("iphone-app-status", app.lastRelaunch);
  const list = $("iphone-app-log");
  list.replaceChildren();
  for (const line of app.log.slice(-8).reverse()) {
    const item = document.createElement("li");
    item.className = line.kind;
    item.textContent = line.text;
    list.appendChild(item);
  }
}

function renderAndroid(android) {
  text("android-received", `${counted(android.received, "message", "messages")} received`);
  $("lu-allowed").checked = android.liveUpdatesAllowed;
  $("android-online").checked = android.online;
  const notification = android.notifications[android.notifications.length - 1];
  const box = $("notification");
  const chip = $("android-chip");
  if (!notification) {
    box.className = "notification empty";
    text("android-title", "No Live Update");
    ["android-text", "android-promoted", "android-reasons"].forEach((id) => text(id, ""));
    $("android-progress").replaceChildren();
    chip.classList.add("hidden");
    return;
  }
  box.className = "notification";
  text("android-title", notification.title);
  text("android-text", notification.text);
  const promoted = $("android-promoted");
  promoted.textContent = notification.promoted ? "· promoted Live Update" : "· not promoted";
  promoted.className = notification.promoted ? "promoted" : "not-promoted";
  text("android-reasons", notification.promoted ? "" : notification.notPromotedBecause.join("; "));
  chip.textContent = notification.chip;
  chip.classList.toggle("hidden", !notification.chip);
  const progress = $("android-progress");
  progress.replaceChildren();
  const total = notification.max || 100;
  let position = 0;
  for (const segment of notification.segments) {
    const element = document.createElement("span");
    element.className = position + segment.length <= notification.progress ? "seg done" : "seg";
    element.style.flex = String(segment.length);
    progress.appendChild(element);
    position += segment.length;
  }
  for (const point of notification.points) {
    const element = document.createElement("span");
    element.className = "point";
    element.style.left = `${(100 * point.position) / total}%`;
    progress.appendChild(element);
  }
}

// The current order (id, step, running or ended); the order buttons act on it only while it runs.
function renderOrder(order) {
  const line = $("current-order");
  line.dataset.running = order && order.running ? "true" : "false";
  text("current-order", order ? `Current order ${order.id} · ${order.status} · ${order.running ? "running" : "ended"}`
    : "No order yet");
  for (const id of ["next", "reassign", "end", "offline-burst"]) $(id).disabled = !(order && order.running);
  document.body.dataset.order = order ? order.id : "";
}

// Drops in a row with the same trap are one line ("×12", the latest reason), so a burst of one kind
// (a backlog shed at 5 a second) does not push the others out of the eight lines shown.
function groupDrops(drops) {
  const groups = [];
  for (const drop of drops) {
    const last = groups[groups.length - 1];
    if (last && last.trap === drop.trap) {
      last.count += 1;
      last.reason = drop.reason;
    } else {
      groups.push({ trap: drop.trap, reason: drop.reason, count: 1 });
    }
  }
  return groups;
}

function renderDrops(id, drops) {
  const list = $(id);
  list.replaceChildren();
  for (const group of groupDrops(drops).slice(-8).reverse()) {
    const item = document.createElement("li");
    const trap = document.createElement("b");
    trap.textContent = group.trap ? `${group.trap} ` : "";
    item.append(trap, group.count > 1 ? `×${group.count} ${group.reason}` : group.reason);
    list.appendChild(item);
  }
}

let refreshing = false;
let again = false;

async function refresh() {
  if (refreshing) {
    again = true;
    return;
  }
  refreshing = true;
  try {
    const response = await fetch("/demo/state", { cache: "no-store" });
    const state = await response.json();
    renderIPhone(state.iphone);
    renderApp(state.iphone.app);
    renderAndroid(state.android);
    renderDrops("iphone-drops", state.iphone.drops);
    renderDrops("android-drops", state.android.drops);
    renderOrder(state.order);
  } finally {
    refreshing = false;
    if (again) {
      again = false;
      refresh();
    }
  }
}

