"""
A tiny Chrome DevTools Protocol client over --remote-debugging-pipe (fd 3:
commands in, fd 4: replies and events out, each message one JSON object
ending in a NUL byte), enough to load a page in headless Chromium, collect
what went wrong while it loaded, read its DOM and take a screenshot.
"""
import base64
import fcntl
import json
import os
import select
import subprocess
import time


class ChromeError(Exception):
    pass


class Chrome:
    def __init__(self, exe, profile_dir, timeout=60.0):
        self.timeout = timeout
        cmd_r, cmd_w = os.pipe()  # we write commands, chromium reads fd 3
        out_r, out_w = os.pipe()  # chromium writes fd 4, we read

        def child_fds():
            # via fds above any in use, so neither lands on the other
            a = fcntl.fcntl(cmd_r, fcntl.F_DUPFD, 100)
            b = fcntl.fcntl(out_w, fcntl.F_DUPFD, 100)
            os.dup2(a, 3, inheritable=True)
            os.dup2(b, 4, inheritable=True)
            os.close(a)
            os.close(b)

        self.proc = subprocess.Popen(
            [exe, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
             "--no-first-run", "--no-default-browser-check", "--disable-extensions",
             "--disable-background-networking", "--disable-sync", "--hide-scrollbars",
             "--user-data-dir=" + profile_dir,
             "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            pass_fds=(3, 4), preexec_fn=child_fds, close_fds=True)
        os.close(cmd_r)
        os.close(out_w)
        self.w, self.r = cmd_w, out_r
        self.buf = b""
        self.next_id = 0
        self.events = []
        self.session = None

    def close(self):
        try:
            self.send("Browser.close", session=False)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for fd in (self.w, self.r):
            try:
                os.close(fd)
            except OSError:
                pass

    def _read_message(self, deadline):
        while b"\0" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise ChromeError("no reply from chromium within %.0f s" % self.timeout)
            ready, _, _ = select.select([self.r], [], [], left)
            if not ready:
                continue
            chunk = os.read(self.r, 1 << 20)
            if not chunk:
                err = self.proc.stderr.read().decode(errors="replace") if self.proc.poll() is not None else ""
                raise ChromeError("chromium closed the pipe: " + err[-2000:])
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def send(self, method, params=None, session=True):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self.w, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            m = self._read_message(deadline)
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise ChromeError("%s: %s" % (method, m["error"]))
                return m.get("result", {})
            if "method" in m:
                self.events.append(m)

    def wait_event(self, method):
        deadline = time.monotonic() + self.timeout
        for m in self.events:
            if m["method"] == method:
                return m
        while True:
            m = self._read_message(deadline)
            if "method" in m:
                self.events.append(m)
                if m["method"] == method:
                    return m

    def open(self, url, width=1200, height=3000):
        """Loads url in a new tab; returns once its load event fired."""
        target = self.send("Target.createTarget", {"url": "about:blank"}, session=False)["targetId"]
        self.session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True},
                                 session=False)["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.send(domain + ".enable")
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
        self.events = []
        self.send("Page.navigate", {"url": url})
        self.wait_event("Page.loadEventFired")
        # let late console messages and failed loads arrive
        self.evaluate("new Promise(r => setTimeout(r, 300))", await_promise=True)

    def evaluate(self, expr, await_promise=False):
        r = self.send("Runtime.evaluate", {"expression": expr, "returnByValue": True,
                                           "awaitPromise": await_promise})
        if "exceptionDetails" in r:
            raise ChromeError("evaluate %r: %s" % (expr, r["exceptionDetails"]))
        return r["result"].get("value")

    def problems(self):
        """Console errors and warnings, uncaught exceptions, failed loads, and
        every request for something other than a file: or data: URL."""
        out = []
        for e in self.events:
            m, p = e["method"], e.get("params", {})
            if m == "Runtime.exceptionThrown":
                out.append("Uncaught: " + json.dumps(p.get("exceptionDetails", {}))[:500])
            elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "warning", "assert"):
                out.append("console.%s: %s" % (p["type"], json.dumps(p.get("args"))[:500]))
            elif m == "Log.entryAdded" and p.get("entry", {}).get("level") in ("error", "warning"):
                out.append("log %s: %s" % (p["entry"]["level"], p["entry"].get("text", "")[:500]))
            elif m == "Network.requestWillBeSent":
                url = p.get("request", {}).get("url", "")
                if not (url.startswith("file:") or url.startswith("data:") or url == "about:blank"):
                    out.append("request: " + url)
            elif m == "Network.loadingFailed":
                out.append("loading failed: %s" % json.dumps(p)[:500])
        return out

    def screenshot(self, path):
        """The whole viewport (set by open) as a PNG."""
        data = self.send("Page.captureScreenshot", {"format": "png"})["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))
