"""notebooks/tour.ipynb in a real front end: JupyterLab (from PyPI) served
to a headless Chromium (Debian's package) that Selenium drives through the
system chromedriver. The test opens the notebook, picks Run > Run All Cells
from the menu bar, waits until every cell has run, and checks the page as a
user sees it: the tensor's HTML table, the plot's inline PNG, no error
output. Before running, the notebook must be unmodified (the kernel's
language_info is what it stores); afterwards Help › About the kernel and
the launcher must show the kernel's logo (the kernelspec's logo-svg.svg /
logo-64x64.png), not a broken image or a placeholder letter. Screenshots go to test-output/browser/ (ignored by git).

Chromium is installed by `make test` (scripts/setup-chromium.sh) where it
can be; where it cannot, this test skips and the pytest summary says loudly
that the browser test did not run (conftest.py)."""
import base64
import json
import os
import pathlib
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "test-output" / "browser"

# Generous: JupyterLab and Chromium each take seconds to start on a loaded
# 2-core machine. Waits return as soon as their condition holds.
START_TIMEOUT = 90
RUN_TIMEOUT = 120


def chromium_path():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


CHROMIUM = chromium_path()
CHROMEDRIVER = shutil.which("chromedriver")
MISSING = [what for what, path in (("chromium", CHROMIUM), ("chromedriver", CHROMEDRIVER)) if not path]
# The conftest's terminal summary reads this reason to explain the skip.
SKIP_REASON = (
    f"BROWSER TEST DID NOT RUN: {' and '.join(MISSING)} not found on PATH; "
    "run scripts/setup-chromium.sh as root, or apt-get install chromium chromium-driver"
)

pytestmark = pytest.mark.skipif(bool(MISSING), reason=SKIP_REASON)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def write_settings(settings_dir):
    """User settings for this JupyterLab only: no news or update checks
    (their toasts would cover the page), and every cell kept in the DOM
    (windowing would drop the ones scrolled out of view)."""
    for plugin, values in {
        "@jupyterlab/apputils-extension/notification": {"checkForUpdates": False, "fetchNews": "false"},
        "@jupyterlab/notebook-extension/tracker": {"windowingMode": "none"},
    }.items():
        pkg, name = plugin.rsplit("/", 1)
        path = settings_dir / pkg / f"{name}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))


@pytest.fixture
def lab(tmp_path):
    """A JupyterLab server on a free port, rooted at a copy of the tour (so
    its autosave never touches the repository), finding the emily
    kernelspec that conftest.py installed into JUPYTER_DATA_DIR."""
    nbdir = tmp_path / "notebooks"
    nbdir.mkdir()
    shutil.copy(ROOT / "notebooks" / "tour.ipynb", nbdir / "tour.ipynb")
    write_settings(tmp_path / "lab-settings")
    env = dict(
        os.environ,
        JUPYTER_CONFIG_DIR=str(tmp_path / "config"),  # no user config leaks in
        JUPYTERLAB_SETTINGS_DIR=str(tmp_path / "lab-settings"),
        JUPYTERLAB_WORKSPACES_DIR=str(tmp_path / "workspaces"),
    )
    port, token = free_port(), secrets.token_hex(16)
    log = open(tmp_path / "jupyterlab.log", "w")
    proc = subprocess.Popen(
        [
            sys.executable, "-m", "jupyterlab",
            "--no-browser", "--allow-root",
            "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
            f"--IdentityProvider.token={token}",
            f"--ServerApp.root_dir={nbdir}",
            "--LabApp.expose_app_in_browser=True",  # window.jupyterapp, to read cell models
        ],
        env=env, stdout=log, stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        if proc.poll() is not None:
            pytest.fail(f"jupyter lab exited with {proc.returncode}:\n{(tmp_path / 'jupyterlab.log').read_text()}")
        try:
            with urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2) as r:
                if r.status == 200:
                    break
        except OSError:
            pass
        if time.monotonic() > deadline:
            proc.kill()
            pytest.fail(f"jupyter lab did not answer in {START_TIMEOUT}s:\n{(tmp_path / 'jupyterlab.log').read_text()}")
        time.sleep(0.2)  # polling a socket: there is nothing to wait on
    yield base, token, tmp_path / "jupyterlab.log"
    proc.terminate()  # the server shuts its kernels down on SIGTERM
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    log.close()


@pytest.fixture
def browser(tmp_path, monkeypatch):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    monkeypatch.setenv("SE_OFFLINE", "true")  # never let Selenium Manager download a driver
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for arg in (
        "--headless=new",
        "--no-sandbox",  # root in a container has no user namespace for the sandbox
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--window-size=1280,1800",
        f"--user-data-dir={tmp_path / 'chromium-profile'}",
    ):
        opts.add_argument(arg)
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=opts)
    yield driver
    driver.quit()


# The open notebook panel, once its kernel is connected and idle.
PANEL_JS = """
const app = window.jupyterapp;
const w = app && app.shell.currentWidget;
const k = w && w.sessionContext && w.sessionContext.session && w.sessionContext.session.kernel;
return !!(k && k.status === 'idle' && w.content && w.content.widgets.length > 0);
"""

# Every code cell's state, from the notebook model JupyterLab renders.
CELLS_JS = """
const w = window.jupyterapp.shell.currentWidget;
const k = w.sessionContext.session.kernel;
return {kernel: k.status, cells: w.content.widgets
  .filter(c => c.model.type === 'code')
  .map(c => ({count: c.model.executionCount, outputs: c.model.toJSON().outputs}))};
"""


# Whether the open notebook differs from its file: the dirty flag the tab
# shows as a dot, and what autosave acts on.
DIRTY_JS = """
const w = window.jupyterapp.shell.currentWidget;
return {dirty: w.context.model.dirty, languageInfo: w.context.model.getMetadata('language_info')};
"""

# The launcher's card for the emily kernel: its icon image, or the
# placeholder letter JupyterLab shows when the kernelspec has no logo.
LAUNCHER_JS = """
const cards = [...document.querySelectorAll('.jp-LauncherCard')]
  .filter(c => c.getAttribute('data-category') === 'Notebook' && (c.title || c.textContent).includes('Go (Emily)'));
if (cards.length === 0) return null;
const img = cards[0].querySelector('.jp-LauncherCard-icon img');
return {img: img ? {src: img.src, complete: img.complete, width: img.naturalWidth, height: img.naturalHeight} : null,
        placeholder: !!cards[0].querySelector('.jp-LauncherCard-noKernelIcon'),
        html: cards[0].outerHTML.slice(0, 600)};
"""


def check_kernelspec_logos(base, token):
    """The server offers the three logos from the installed kernelspec."""
    with urllib.request.urlopen(f"{base}/api/kernelspecs?token={token}", timeout=10) as r:
        specs = json.load(r)
    resources = specs["kernelspecs"]["emily"]["resources"]
    for name, ctype in (("logo-32x32", "image/png"), ("logo-64x64", "image/png"), ("logo-svg", "image/svg+xml")):
        assert name in resources, f"the kernelspec has no {name}: {resources}"
        with urllib.request.urlopen(f"{base}{resources[name]}?token={token}", timeout=10) as r:
            body = r.read()
            assert r.status == 200 and r.headers.get_content_type() == ctype, (name, r.status, r.headers)
            assert body.startswith(b"\x89PNG") if ctype == "image/png" else b"<svg" in body, name


def test_tour_runs_in_jupyterlab(lab, browser):
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait

    base, token, log = lab
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "failure.png").unlink(missing_ok=True)
    wait = WebDriverWait(browser, START_TIMEOUT)

    def fail(msg):
        browser.save_screenshot(str(OUT / "failure.png"))
        pytest.fail(f"{msg}\nscreenshot: {OUT / 'failure.png'}\njupyter lab log:\n{log.read_text()[-4000:]}")

    browser.get(f"{base}/lab/tree/tour.ipynb?token={token}")
    try:
        wait.until(lambda d: d.execute_script(PANEL_JS))
    except TimeoutException:
        fail("the notebook did not open with an idle emily kernel")

    # The kernel's info has been taken in (language_info, kernelspec) once
    # it is idle; give the model a moment to take any change, then it
    # must still be the file as stored.
    time.sleep(2)  # nothing to wait on: the check is that nothing happens
    state = browser.execute_script(DIRTY_JS)
    if state["dirty"]:
        stored = json.loads((ROOT / "notebooks" / "tour.ipynb").read_text())["metadata"]["language_info"]
        fail(f"tour.ipynb opened as modified: JupyterLab holds language_info {state['languageInfo']}, "
             f"the file stores {stored}")

    # Run > Run All Cells, as a user picks it.
    browser.find_element(By.XPATH, "//li[contains(@class,'lm-MenuBar-item')][.//div[text()='Run']]").click()
    try:
        WebDriverWait(browser, 20).until(EC.element_to_be_clickable(
            (By.XPATH, "//li[contains(@class,'lm-Menu-item')][.//div[text()='Run All Cells']]"))).click()
    except TimeoutException:
        menus = [m.get_attribute("outerHTML")[:3000] for m in browser.find_elements(By.CSS_SELECTOR, ".lm-Menu")]
        fail(f"Run > Run All Cells did not show; open menus: {menus}")

    def all_ran(d):
        state = d.execute_script(CELLS_JS)
        done = state["kernel"] == "idle" and all(c["count"] for c in state["cells"])
        return state if done else False

    try:
        state = WebDriverWait(browser, RUN_TIMEOUT).until(all_ran)
    except TimeoutException:
        fail(f"not every cell ran in {RUN_TIMEOUT}s: {browser.execute_script(CELLS_JS)}")

    counts = [c["count"] for c in state["cells"]]
    assert counts == list(range(1, len(counts) + 1)), f"cells ran out of order: {counts}"
    errors = [o for c in state["cells"] for o in c["outputs"] if o["output_type"] == "error"]
    assert not errors, f"error outputs: {[(e['ename'], e['evalue']) for e in errors]}"
    # JupyterLab renders both error outputs and stderr streams with this type.
    stderr = browser.find_elements(By.CSS_SELECTOR, ".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")
    assert not stderr, f"stderr in the page: {[e.text for e in stderr]}"
    # Every code cell's prompt in the page shows its execution count.
    prompts = [p.text for p in browser.find_elements(By.CSS_SELECTOR, ".jp-CodeCell .jp-InputArea-prompt")]
    assert prompts == [f"[{n}]:" for n in counts], prompts

    code_cells = browser.find_elements(By.CSS_SELECTOR, ".jp-Notebook .jp-CodeCell")

    # The first cell's tensor shows as the kernel's HTML table, rendered.
    first = code_cells[0]
    html_out = first.find_element(By.CSS_SELECTOR, ".jp-OutputArea-output[data-mime-type='text/html']")
    header = html_out.find_element(By.CSS_SELECTOR, ".emily-tensor small").text
    assert "shape [2 3]" in header and "int32" in header, header
    rows = [[td.text for td in tr.find_elements(By.TAG_NAME, "td")]
            for tr in html_out.find_elements(By.CSS_SELECTOR, "table tr")]
    assert rows == [["0", "1", "2"], ["3", "4", "5"]], rows

    # The last cell's plot is an inline PNG, decoded by the browser at the
    # size the cell asked for (Size(480, 300)) and laid out on the page.
    plot_cell = code_cells[-1]
    img = plot_cell.find_element(By.CSS_SELECTOR, ".jp-OutputArea-output[data-mime-type='image/png'] img")
    src = img.get_attribute("src")
    assert src.startswith("data:image/png;base64,"), src[:60]
    png = base64.b64decode(src.split(",", 1)[1])
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", img)
    WebDriverWait(browser, 10).until(lambda d: d.execute_script("return arguments[0].complete", img))
    natural = browser.execute_script("return [arguments[0].naturalWidth, arguments[0].naturalHeight]", img)
    assert natural == [480, 300], natural
    assert img.size["width"] >= 240 and img.size["height"] >= 150, img.size

    browser.save_screenshot(str(OUT / "tour.png"))
    plot_cell.screenshot(str(OUT / "tour-plot.png"))

    # Help › About the Go (Emily) Kernel shows the logo, decoded (it was a
    # broken image).
    check_kernelspec_logos(base, token)
    browser.execute_script("window.jupyterapp.commands.execute('help-menu-emily:banner')")
    about_js = """const img = document.querySelector('.jp-Dialog .jp-About-header img');
        return img && {src: img.src, complete: img.complete, width: img.naturalWidth};"""
    try:
        about = WebDriverWait(browser, 20).until(
            lambda d: (a := d.execute_script(about_js)) and a["complete"] and a)
    except TimeoutException:
        fail(f"Help › About the Go (Emily) Kernel shows no loaded logo: {browser.execute_script(about_js)}")
    assert "/kernelspecs/emily/logo-" in about["src"] and about["width"] > 0, f"broken About logo: {about}"
    browser.save_screenshot(str(OUT / "about.png"))
    browser.find_element(By.CSS_SELECTOR, ".jp-Dialog .jp-Dialog-button").click()
    WebDriverWait(browser, 10).until(lambda d: not d.find_elements(By.CSS_SELECTOR, ".jp-Dialog"))

    # The launcher shows the kernel's logo, loaded, not the placeholder.
    browser.execute_script("window.jupyterapp.commands.execute('launcher:create')")
    try:
        card = WebDriverWait(browser, 20).until(
            lambda d: (c := d.execute_script(LAUNCHER_JS)) and c["img"] and c["img"]["complete"] and c)
    except TimeoutException:
        fail(f"the launcher's Go (Emily) card has no loaded logo: {browser.execute_script(LAUNCHER_JS)}")
    assert not card["placeholder"], card
    assert "/kernelspecs/emily/logo-" in card["img"]["src"], card
    assert card["img"]["width"] > 0 and card["img"]["height"] > 0, f"the logo did not decode: {card}"
    browser.save_screenshot(str(OUT / "launcher.png"))
