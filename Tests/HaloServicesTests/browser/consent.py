#!/usr/bin/env python3
"""Plays the person at the identity provider's consent page in a real browser (Debian's Chromium,
headless, driven by Selenium through chromedriver): opens the sign-in address HaloDesk or `halo`
printed, screenshots the consent page, picks an account, waits for HaloDesk's landing page on
127.0.0.1 and screenshots it. Prints the landing page's heading and text as JSON on the last line.
The landing page comes once HaloDesk knows the outcome, or after 15 s with "Still signing you in".

usage: consent.py ADDRESS ACCOUNT_NAME SCREENSHOT_DIR [LANDING_SCREENSHOT_NAME]
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
    address, account, shots = sys.argv[1], sys.argv[2], sys.argv[3]
    landing_shot = sys.argv[4] if len(sys.argv) > 4 else "browser-landing.png"
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=900,800",
                 "--no-first-run", "--disable-dev-shm-usage", "--user-data-dir=" + tempfile.mkdtemp()):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    try:
        driver.get(address)
        wait = WebDriverWait(driver, 20)
        wait.until(expected_conditions.presence_of_element_located((By.TAG_NAME, "form")))
        driver.save_screenshot(shots + "/browser-consent.png")
        buttons = [b for b in driver.find_elements(By.TAG_NAME, "button") if ("Continue as " + account) in b.text]
        assert buttons, "no 'Continue as %s' button on %s" % (account, driver.page_source[:400])
        buttons[0].click()
        landing = WebDriverWait(driver, 40)  # the page waits for the outcome, at most 15 s
        landing.until(lambda d: d.current_url.startswith("http://127.0.0.1:") and "/halodesk/oauth2/callback" in d.current_url)
        landing.until(expected_conditions.presence_of_element_located((By.TAG_NAME, "h1")))
        driver.save_screenshot(shots + "/" + landing_shot)
        heading = driver.find_element(By.TAG_NAME, "h1").text
        text = driver.find_element(By.TAG_NAME, "body").text
        print(json.dumps({"heading": heading, "text": text}))
    finally:
        driver.quit()


if __name__ == "__main__":
    main()
