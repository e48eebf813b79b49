"""The page of ``uno-env serve`` in a real browser: a person plays one whole game by
clicking, saves it, and steps through its replay (headless Chromium, driven by
Selenium; ``.ci/run`` installs Debian's ``chromium`` and ``chromium-driver``).

With ``UNO_SCREENSHOTS=<folder>`` the test saves its pictures of the page there: the
screenshots of the documentation (``docs/web.md``) are taken this way.
"""

from __future__ import annotations

import os
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
uvicorn = pytest.importorskip("uvicorn")
webdriver = pytest.importorskip("selenium.webdriver")

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

from uno_env import Engine, Rules  # noqa: E402
from uno_env.records import load_record  # noqa: E402
from uno_env.web.app import create_app  # noqa: E402
from uno_env.web.server import bind  # noqa: E402

CHROMEDRIVER = shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(CHROMEDRIVER is None, reason="needs Debian's chromium-driver")
#: Seconds any one wait for the page may take, and between two looks at it.
WAIT, POLL = 20, 0.02


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """The app on a free local port, in a thread: its address and records folder. The
    engine's kernels are loaded first (seconds on a busy machine), outside the waits."""
    Engine(Rules(num_players=2), 1, 0)
    folder = tmp_path / "records"
    sock = bind(0)
    instance = uvicorn.Server(uvicorn.Config(create_app(folder), log_level="warning",
                                             timeout_graceful_shutdown=2))
    thread = threading.Thread(target=instance.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + WAIT
    while not instance.started and time.monotonic() < deadline:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{sock.getsockname()[1]}", folder
    instance.should_exit = True
    thread.join(10)
    sock.close()


@pytest.fixture
def browser() -> Iterator[webdriver.Chrome]:
    options = webdriver.ChromeOptions()
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                "--disable-gpu", "--window-size=1280,1000"):
        options.add_argument(arg)
    driver = webdriver.Chrome(options=options,
                              service=webdriver.ChromeService(executable_path=CHROMEDRIVER))
    try:
        yield driver
    finally:
        driver.quit()


def _body(driver: webdriver.Chrome, name: str) -> str:
    return driver.find_element(By.TAG_NAME, "body").get_attribute(f"data-{name}") or ""


def _wait_for_person(driver: webdriver.Chrome, seq: str) -> str:
    """Wait until the page has redrawn since ``seq`` and the person is to act or the game
    is over; that status."""
    def ready(d: webdriver.Chrome) -> str | bool:
        status, now = d.execute_script(     # one read of both: the page may redraw between
            "return [document.body.dataset.status, document.body.dataset.seq]")
        assert status != "error", d.find_element(By.ID, "message").text
        return status if now != seq and status in ("your_turn", "over") else False
    return WebDriverWait(driver, WAIT, POLL).until(ready)


def _shoot(driver: webdriver.Chrome, name: str) -> None:
    folder = os.environ.get("UNO_SCREENSHOTS")
    if folder:
        driver.save_screenshot(str(Path(folder) / name))


def _click_a_legal_move(driver: webdriver.Chrome) -> None:
    """A card of the hand when one is playable (a wild asks for its color), else the
    first action button: every click is one of the page's own controls."""
    cards = driver.find_elements(By.CSS_SELECTOR, "#hand button.card.playable")
    if cards:
        cards[0].click()
        colors = driver.find_elements(By.CSS_SELECTOR, "#chooser button[data-action]")
        if colors:
            colors[-1].click()
        return
    buttons = driver.find_elements(By.CSS_SELECTOR, "#controls button[data-action]")
    assert buttons, "no control for the legal actions: " + driver.execute_script(
        "return JSON.stringify([document.body.dataset.seq, play.game.legal, "
        "play.game.hands, play.game.waiting_for, document.getElementById('hand').innerHTML])")
    buttons[0].click()


def test_a_person_plays_a_game_to_its_end_and_replays_it(server, browser) -> None:
    url, folder = server
    driver = browser
    driver.get(url)
    WebDriverWait(driver, WAIT, POLL).until(lambda d: _body(d, "status") == "idle")
    Select(driver.find_element(By.ID, "preset")).select_by_value("official")
    agents = driver.find_element(By.ID, "agents")
    agents.clear()
    agents.send_keys("random_play")
    driver.find_element(By.ID, "seed").send_keys("12")
    driver.execute_script("const d = document.getElementById('delay'); d.value = 0;"
                          "d.dispatchEvent(new Event('input'));")
    seq = _body(driver, "seq")
    driver.find_element(By.ID, "start").click()
    moves, shot = 0, False
    while _wait_for_person(driver, seq) == "your_turn":
        moves += 1
        if not shot and moves >= 3 and driver.find_elements(By.CSS_SELECTOR, ".playable"):
            _shoot(driver, "web-play.png")
            shot = True
        seq = _body(driver, "seq")
        _click_a_legal_move(driver)
        assert moves < 400, "the game does not end"
    status = driver.find_element(By.CSS_SELECTOR, "#table .status").text
    assert status.startswith("game over:") and "wins" in status
    assert driver.find_elements(By.CSS_SELECTOR, "#table .seat.winner")
    log = driver.find_elements(By.CSS_SELECTOR, "#log li")
    assert sum(li.text.startswith("you: ") for li in log) == moves

    driver.find_element(By.ID, "save").click()
    WebDriverWait(driver, WAIT, POLL).until(
        lambda d: "saved as" in d.find_element(By.ID, "message").text)
    (saved,) = folder.glob("*.json")
    record = load_record(saved)
    assert record.seats == ("you", "random_play")

    driver.find_element(By.ID, "tab-replays").click()
    WebDriverWait(driver, WAIT, POLL).until(
        lambda d: d.find_element(By.ID, "records").get_attribute("value") == saved.name)
    driver.find_element(By.ID, "open").click()
    step = driver.find_element(By.ID, "step")
    last = len(record.actions)
    WebDriverWait(driver, WAIT, POLL).until(lambda d: step.text == f"position 0 of {last}")
    assert len(driver.find_elements(By.CSS_SELECTOR, "#replay-table .mini-hand")) == 2
    for _ in range(3):
        driver.find_element(By.ID, "forward").click()
    driver.find_element(By.ID, "back").click()
    assert step.text == f"position 2 of {last}"
    assert len(driver.find_elements(By.CSS_SELECTOR, "#replay-log li")) == 2
    Select(driver.find_element(By.ID, "viewer")).select_by_value("1")
    WebDriverWait(driver, WAIT, POLL).until(
        lambda d: d.find_elements(By.CSS_SELECTOR, "#replay-table #hand"))
    assert step.text == f"position 2 of {last}"
    assert not driver.find_elements(By.CSS_SELECTOR, "#replay-table .mini-hand")
    _shoot(driver, "web-replay.png")
    driver.find_element(By.ID, "last").click()
    assert step.text == f"position {last} of {last}"
    assert driver.find_element(By.CSS_SELECTOR, "#replay-table .status").text == status
