#!/usr/bin/env python3
"""The operator console in a real browser: headless Chromium from Debian, driven through chromedriver's
W3C WebDriver protocol (plain HTTP, no client library), against `droptrack serve` with the emulators
(checks/stack.py).

1. Sign in at /console/login with app1's API key; the key is nowhere in the page or its cookies.
2. Create an activity through the API (with an Android device registered): it is listed, and opens
   with its devices, timeline and diagnosis.
3. The live events page follows the stream: the send of a new update shows up.
4. The plots page draws three SVG plots.
5. At 1280 and 390 px wide, with no horizontal scroll at 390; screenshots to
   .build/artifacts/console-1280.png and console-390.png.
6. A cross-site POST (from a page of another origin) signs nobody out; a forged one from Python
   with the session cookie but another Origin is refused 403.

Usage: console_browser.py PATH/TO/droptrack
"""
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from stack import Stack, check, failures  # noqa: E402
from webdriver import WebDriver, wait_for  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DROPTRACK = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".build/debug/droptrack")
ARTIFACTS = os.path.join(ROOT, ".build/artifacts")


def raw_post(base, path, form, headers):
    request = urllib.request.Request(base + path, data=urllib.parse.urlencode(form).encode(), method="POST",
                                     headers={"Content-Type": "application/x-www-form-urlencoded", **headers})

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None

    try:
        with urllib.request.build_opener(NoRedirect).open(request, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


stack = Stack(DROPTRACK, apps=("app1",)).start()
browser = None
key = stack.keys["app1"]
try:
    browser = WebDriver(window="1280,900")
    browser.width(1280)

    print("sign in")
    browser.open(f"{stack.base}/console/")
    wait_for("the sign-in form", lambda: browser.count("input#key") == 1)
    check(browser.script("return location.pathname") == "/console/login", "an anonymous visit lands on sign-in")
    browser.type("input#key", key)
    browser.click("form button[type=submit]")
    wait_for("the activities page", lambda: browser.script("return document.querySelector('h1').textContent")
             == "Activities")
    html = browser.script("return document.documentElement.outerHTML")
    check(key not in html, "the API key is nowhere in the page")
    check(browser.script("return document.cookie") == "", "no cookie is readable by scripts (HttpOnly)")

    print("an activity created through the API is listed and opens")
    status, _, _ = stack.api("POST", "/v1/tokens/fcm", {"userId": "u1", "deviceId": "pixel-1",
                                                        "token": "fcm-token-" + "x" * 40})
    check(status in (200, 201), f"an Android device registered ({status})")
    status, body, _ = stack.api("POST", "/v1/activities", {
        "activityId": "order-1001", "userId": "u1", "attributesType": "DeliveryAttributes",
        "attributes": {"orderId": "1001"}, "alert": {"title": "Order placed", "body": "Sam is on it"},
        "idempotencyKey": "start-order-1001",
        "event": {"type": "delivery.step", "data": {"step": "placed", "courierName": "Sam"}}})
    check(status == 201, f"the activity started ({status} {str(body)[:200]})")
    browser.open(f"{stack.base}/console/")
    wait_for("the activity in the list", lambda: "order-1001" in browser.text("main"))
    browser.click('a[href="/console/activities/order-1001"]')
    wait_for("the activity page", lambda: "Diagnosis" in browser.text("main"))
    check(browser.count("table") >= 1 and "Timeline" in browser.text("main"), "devices and timeline shown")
    wait_for("the start's send in the timeline", lambda: (browser.open(browser.script("return location.href"))
                                                          or "fcm" in browser.text("main")), timeout=30)

    print("the live event stream")
    browser.open(f"{stack.base}/console/events")
    wait_for("the stream to connect", lambda: browser.text("#stream-status") == "connected")
    # The FCM emulator does not know the first device's token, so it was invalidated by the first send:
    # a second order to a newly registered device makes the next send.
    stack.api("POST", "/v1/tokens/fcm", {"userId": "u2", "deviceId": "pixel-2", "token": "fcm-token-" + "y" * 40})
    stack.api("POST", "/v1/activities", {
        "activityId": "order-1002", "userId": "u2", "attributesType": "DeliveryAttributes",
        "attributes": {"orderId": "1002"}, "alert": {"title": "Order placed", "body": "Sam is on it"},
        "idempotencyKey": "start-order-1002",
        "event": {"type": "delivery.step", "data": {"step": "placed", "courierName": "Sam"}}})
    wait_for("the start's send in the list", lambda: "order-1002" in browser.text("#events"), timeout=30)
    check(browser.count("#events li") >= 1, f"events listed: {browser.text('#events')[:160]!r}")

    print("plots")
    time.sleep(11)  # two sampler intervals, so the plots have lines of two readings
    browser.open(f"{stack.base}/console/plots")
    wait_for("three plots", lambda: browser.count("figure.plot svg") == 3)
    check(browser.count("figure.plot svg path.line") >= 4, "each plot draws its lines")
    browser.screenshot(os.path.join(ARTIFACTS, "console-plots-1280.png"))

    print("widths")
    for width in (1280, 390):
        browser.width(width)
        browser.open(f"{stack.base}/console/activities/order-1001")
        wait_for("the activity page", lambda: "Diagnosis" in browser.text("main"))
        browser.screenshot(os.path.join(ARTIFACTS, f"console-activity-{width}.png"))
        for page in ("/console/activities/order-1001", "/console/tokens", "/console/plots", "/console/events"):
            browser.open(stack.base + page)
            wait_for(f"{page} at {width}", lambda: browser.count("main h1") == 1)
            scroll, inner = browser.script("return [document.documentElement.scrollWidth, innerWidth]")
            check(scroll <= inner, f"{page} at {width} px: no horizontal scroll ({scroll} <= {inner})")
        browser.open(f"{stack.base}/console/")
        wait_for("the list", lambda: "order-1001" in browser.text("main"))
        browser.screenshot(os.path.join(ARTIFACTS, f"console-{width}.png"))
        check(os.path.getsize(os.path.join(ARTIFACTS, f"console-{width}.png")) > 5_000, f"console-{width}.png saved")
    browser.width(1280)

    print("cross-site requests change nothing")
    csrf = browser.script("return document.querySelector('input[name=csrf]').value")
    browser.open("about:blank")
    browser.script("""
        const form = document.createElement('form');
        form.method = 'POST'; form.action = arguments[0];
        const field = document.createElement('input');
        field.name = 'csrf'; field.value = arguments[1]; form.append(field);
        document.body.append(form); form.submit();""", f"{stack.base}/console/logout", csrf)
    time.sleep(1)
    browser.open(f"{stack.base}/console/")
    wait_for("the console", lambda: browser.count("main h1") == 1)
    check(browser.script("return location.pathname") == "/console/", "a post from another page signs nobody out")
    session = next((c["value"] for c in browser.do("GET", "/cookie") if c["name"] == "dt_console"), None)
    check(session is not None, "the session cookie is set")
    cookie_flags = next((c for c in browser.do("GET", "/cookie") if c["name"] == "dt_console"), {})
    check(cookie_flags.get("httpOnly") and cookie_flags.get("sameSite") == "Strict", f"cookie flags {cookie_flags}")
    forged = raw_post(stack.base, "/console/logout", {"csrf": csrf},
                      {"Cookie": f"dt_console={session}", "Origin": "https://attacker.example"})
    check(forged == 403, f"a forged post with the cookie but another Origin: {forged}")
    browser.open(f"{stack.base}/console/")
    check(browser.script("return location.pathname") == "/console/", "still signed in")

    print("sign out")
    browser.click("form.signout button")
    wait_for("the sign-in page", lambda: browser.script("return location.pathname") == "/console/login")
    browser.open(f"{stack.base}/console/tokens")
    check(browser.script("return location.pathname") == "/console/login", "signed out: pages go to sign-in")
    server_log = open(f"{stack.work}/server.log").read()
    check(key not in server_log, "the key never reached the server log")
except Exception as error:  # report what the page showed, then fail
    failures.append(str(error))
    print(f"  FAIL {error}")
    if browser:
        try:
            browser.screenshot(os.path.join(ARTIFACTS, "console-failure.png"))
            print(f"  (screenshot of the failure: {ARTIFACTS}/console-failure.png)")
        except Exception:
            pass
    print(open(f"{stack.work}/server.log").read()[-3000:])
finally:
    if browser:
        browser.quit()
    stack.close()

print("console browser check:", "FAIL" if failures else "ok")
sys.exit(1 if failures else 0)
