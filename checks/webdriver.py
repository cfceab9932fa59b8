"""Headless Chromium from Debian, driven through chromedriver's W3C WebDriver protocol over plain
HTTP (no client library): what the browser checks (the demo's dashboard, the operator console) share.
"""
import base64
import json
import os
import shutil
import subprocess
import time
import urllib.error
import urllib.request

from stack import free_port


def wait_for(what, predicate, timeout=20):
    """Polls `predicate` until it returns something true; connection and WebDriver errors count as not yet."""
    deadline = time.time() + timeout
    last = None
    while time.time() < deadline:
        try:
            last = predicate()
            if last:
                return last
        except (urllib.error.URLError, ConnectionError, KeyError, ValueError, RuntimeError):
            pass
        time.sleep(0.1)
    raise RuntimeError(f"timed out after {timeout}s waiting for {what} (last: {last!r})")


class WebDriver:
    """The few W3C WebDriver commands the checks need, on a chromedriver this object started."""

    def __init__(self, window="1280,900"):
        port = free_port()
        self.chromedriver = subprocess.Popen(
            [shutil.which("chromedriver") or "/usr/bin/chromedriver", f"--port={port}"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.base = f"http://127.0.0.1:{port}"
        self.session = None
        try:
            wait_for("chromedriver", lambda: urllib.request.urlopen(f"{self.base}/status", timeout=2).status == 200)
            capabilities = {"capabilities": {"alwaysMatch": {
                "browserName": "chrome",
                "goog:chromeOptions": {"binary": shutil.which("chromium") or "/usr/bin/chromium",
                                       "args": ["--headless=new", "--no-sandbox", "--disable-gpu",
                                                "--disable-dev-shm-usage", f"--window-size={window}"]}}}}
            self.session = self.call("POST", "/session", capabilities)["sessionId"]
        except Exception:
            self.chromedriver.terminate()
            raise

    def call(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.base + path, data=data, method=method,
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return json.loads(response.read())["value"]
        except urllib.error.HTTPError as error:
            raise RuntimeError(f"webdriver {method} {path}: {error.code} {error.read()[:500]!r}") from None

    def do(self, method, path, body=None):
        return self.call(method, f"/session/{self.session}{path}", body)

    def open(self, url):
        self.do("POST", "/url", {"url": url})

    def element(self, css):
        found = self.do("POST", "/element", {"using": "css selector", "value": css})
        return next(iter(found.values()))

    def click(self, css):
        self.do("POST", f"/element/{self.element(css)}/click", {})

    def type(self, css, text):
        self.do("POST", f"/element/{self.element(css)}/value", {"text": text})

    def text(self, css):
        return self.do("GET", f"/element/{self.element(css)}/text")

    def attribute(self, css, name):
        return self.do("GET", f"/element/{self.element(css)}/attribute/{name}") or ""

    def visible(self, css):
        return "hidden" not in self.attribute(css, "class").split()

    def count(self, css):
        return len(self.do("POST", "/elements", {"using": "css selector", "value": css}))

    def script(self, source, *args):
        return self.do("POST", "/execute/sync", {"script": source, "args": list(args)})

    def resize(self, width, height):
        """The window's size (Chromium keeps a minimum width; see `width` for a phone's)."""
        self.do("POST", "/window/rect", {"width": width, "height": height})

    def width(self, pixels):
        """The page's viewport width, as a phone would have it (a window cannot be made this narrow)."""
        self.do("POST", "/goog/cdp/execute", {"cmd": "Emulation.setDeviceMetricsOverride", "params": {
            "width": pixels, "height": 900 if pixels > 600 else 844, "deviceScaleFactor": 1,
            "mobile": pixels <= 600}})

    def screenshot(self, path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(base64.b64decode(self.do("GET", "/screenshot")))

    def quit(self):
        """Ends the session and chromedriver."""
        try:
            if self.session:
                self.do("DELETE", "")
        except RuntimeError:
            pass
        self.chromedriver.terminate()
