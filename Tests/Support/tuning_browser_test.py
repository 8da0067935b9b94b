#!/usr/bin/env python3
"""Tunes a preset on the live workbench's page in headless Chromium as a user would: waits for
the cards, drags the slider of `tone`'s `intensity` from its low value to the right end, waits
for the previews, and measures the mean R−B of the first card's output before and after (in
the page, through a canvas). Then saves and takes a screenshot.

usage: tuning_browser_test.py URL SCREENSHOT.png [NODE:KEY:VALUE]

With NODE:KEY:VALUE, also types VALUE into that control's number field before saving (for a
preset with "foreach", NODE may be one copy, e.g. small-300:width:320).

Prints one JSON object: rMinusBBefore, rMinusBAfter, previewShown, saveLabel, and saved
(whether the Save button emptied the draft); with a field, also fieldLabel (the control's
label) and panelNote (its panel's heading).
"""
import json
import sys
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

# The mean of R − B over the first card's output image, once it has loaded.
R_MINUS_B = """
const img = document.querySelector('.item[data-index="0"] .out img');
if (!img || !img.complete || !img.naturalWidth) return null;
const c = document.createElement('canvas'); c.width = img.naturalWidth; c.height = img.naturalHeight;
const g = c.getContext('2d'); g.drawImage(img, 0, 0);
const d = g.getImageData(0, 0, c.width, c.height).data;
let sum = 0; for (let i = 0; i < d.length; i += 4) sum += d[i] - d[i + 2];
return [sum / (d.length / 4), img.className, img.src];
"""


def wait(driver, script, limit=600):
    """Polls `script` until it returns something; the limit only guards against a hang (a
    loaded machine may take minutes)."""
    deadline = time.time() + limit
    while time.time() < deadline:
        value = driver.execute_script(script)
        if value:
            return value
        time.sleep(0.1)
    return None


def main():
    url, shot = sys.argv[1], sys.argv[2]
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1400,900"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    result = {}
    try:
        driver.get(url)
        # The first card's saved output, made at full size.
        wait(driver, "const e = document.querySelector('.item[data-index=\"0\"]'); return e && e.dataset.state === 'done';")
        before = wait(driver, R_MINUS_B)
        result["rMinusBBefore"] = before[0] if before else None
        # An item that makes several files lists them; picking one shows it, then back to the first.
        result["files"] = driver.execute_script(
            "const f = document.querySelector('.item[data-index=\"0\"] .files'); return f.hidden ? [] : Array.from(f.options).map(o => o.value);")
        if len(result["files"]) > 1:
            Select(driver.find_element(By.CSS_SELECTOR, '.item[data-index="0"] .files')).select_by_index(len(result["files"]) - 1)
            result["shownAfterPick"] = wait(driver, "const i = document.querySelector('.item[data-index=\"0\"] .out img'); "
                                                    "return i && i.src.includes(encodeURIComponent(arguments[0])) ? i.src : null;".replace("arguments[0]", json.dumps(result["files"][-1])))
            Select(driver.find_element(By.CSS_SELECTOR, '.item[data-index="0"] .files')).select_by_index(0)
            before = wait(driver, "const r = (function(){" + R_MINUS_B + "})(); return r && r[2].includes(" + json.dumps(result["files"][0]) + ") ? r : null;")
        slider = wait(driver, "return document.querySelector('.control[data-node=\"tone\"][data-key=\"intensity\"] input[type=range]');")
        # Drag the handle from where it is to the right end, in steps, as a hand would.
        width = slider.size["width"]
        actions = ActionChains(driver).click_and_hold(slider)
        for _ in range(10):
            actions.move_by_offset(width // 10, 0)
        actions.release().perform()
        after = wait(driver, "const r = (function(){" + R_MINUS_B + "})(); return r && r[1] === 'draft' ? r : null;")
        result["rMinusBAfter"] = after[0] if after else None
        result["previewShown"] = bool(after)
        if len(sys.argv) > 3:
            node, key, value = sys.argv[3].split(":")
            selector = f'.control[data-node="{node}"][data-key="{key}"]'
            control = wait(driver, f"return document.querySelector('{selector}');")
            result["fieldLabel"] = control.find_element(By.TAG_NAME, "label").text if control else None
            result["panelNote"] = driver.execute_script(
                "const h = Array.from(document.querySelectorAll('#controls h2')).filter(h => h.compareDocumentPosition(arguments[0]) & 4).pop();"
                "return h ? h.textContent : null;", control) if control else None
            field = control.find_element(By.CSS_SELECTOR, "input[type=number]")
            field.clear()
            field.send_keys(value)
            wait(driver, f"return document.querySelector('{selector}').classList.contains('changed');")
        result["saveLabel"] = driver.find_element(By.ID, "save").text
        driver.save_screenshot(shot)
        driver.find_element(By.ID, "save").click()
        result["saved"] = bool(wait(driver, "return document.getElementById('save').disabled;", 20))
    finally:
        driver.quit()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
