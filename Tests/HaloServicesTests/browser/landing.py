#!/usr/bin/env python3
"""Opens one address of HaloDesk's sign-in listener in a real browser (Debian's Chromium, headless,
through chromedriver), as a person would who followed a link to it, waits for its page (which comes
once HaloDesk knows the outcome, or after 15 s) and screenshots it. Prints the page's heading and
text as JSON on the last line.

usage: landing.py ADDRESS SCREENSHOT_PATH
"""
import json
import sys
import tempfile

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait


def main():
    address, shot = sys.argv[1], sys.argv[2]
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=900,600",
                 "--no-first-run", "--disable-dev-shm-usage", "--user-data-dir=" + tempfile.mkdtemp()):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    try:
        driver.set_page_load_timeout(40)
        driver.get(address)
        WebDriverWait(driver, 40).until(expected_conditions.presence_of_element_located((By.TAG_NAME, "h1")))
        driver.save_screenshot(shot)
        heading = driver.find_element(By.TAG_NAME, "h1").text
        text = driver.find_element(By.TAG_NAME, "body").text
        print(json.dumps({"heading": heading, "text": text}))
    finally:
        driver.quit()


if __name__ == "__main__":
    main()
