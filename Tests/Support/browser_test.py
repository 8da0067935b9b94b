#!/usr/bin/env python3
"""Drives the live workbench's page in headless Chromium (Debian's chromium and chromedriver,
through Selenium) as a user would: load it, wait for what is on screen, take a screenshot,
scroll to the bottom, close the page.

usage: browser_test.py URL SCREENSHOT.png

Prints one JSON object: the items visible at first, whether they all reached done, the
screenshot's size, the items visible after the scroll, and the states seen on the page.
"""
import json
import sys
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

VISIBLE = """
return Array.from(document.querySelectorAll('.item')).filter(e => {
  const r = e.getBoundingClientRect(); return r.bottom > 0 && r.top < window.innerHeight;
}).map(e => Number(e.dataset.index));
"""
# A card whose work has begun (or ended).
STARTED = ("reading", "downloading", "decoding", "filtering", "encoding", "writing", "done", "upToDate", "failed")
STATES = "return Object.fromEntries(Array.from(document.querySelectorAll('.item')).map(e => [e.dataset.index, e.dataset.state]));"


def main():
    url, shot = sys.argv[1], sys.argv[2]
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1200,800"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    result = {}
    try:
        driver.get(url)
        deadline = time.time() + 300
        while time.time() < deadline and not driver.execute_script("return document.querySelectorAll('.item').length"):
            time.sleep(0.1)
        time.sleep(0.5)
        first = driver.execute_script(VISIBLE)
        result["visibleAtStart"] = first
        # Done when every card on screen *now* is done: cards change height as their pictures
        # load, so what is on screen can change while we wait (a card pushed off screen is
        # paused, rightly). The deadline only guards against a hang; a loaded machine may take
        # minutes.
        deadline = time.time() + 600
        done = False
        while time.time() < deadline:
            states = driver.execute_script(STATES)
            now = driver.execute_script(VISIBLE)
            if now and all(states.get(str(i)) in ("done", "upToDate") for i in now):
                done = True
                break
            time.sleep(0.2)
        result["visibleDone"] = done
        time.sleep(0.5)  # the output previews load
        driver.save_screenshot(shot)
        driver.execute_script("window.scrollTo(0, document.body.scrollHeight)")
        time.sleep(0.5)
        result["visibleAfterScroll"] = driver.execute_script(VISIBLE)
        # Closed only once a bottom card has started: on a loaded machine the page can take
        # seconds to tell the server what it shows, and closing before that stops nothing at
        # the bottom (the event, not a clock; the deadline only guards against a hang).
        deadline = time.time() + 300
        while time.time() < deadline:
            states = driver.execute_script(STATES)
            if any(states.get(str(i)) in STARTED for i in result["visibleAfterScroll"]):
                break
            time.sleep(0.1)
        result["states"] = driver.execute_script(STATES)
    finally:
        driver.quit()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
