import { expect, test } from "@playwright/test";

test("checkout shows the total", async ({ page }) => {
  await page.goto("/checkout");
  const title = await page.evaluate(() => document.title);
  const total = await page.evaluate((selector) => document.querySelector(selector)?.textContent, "#total");
  const size = await page.evaluate("window.innerWidth");
  expect(title).toBe("Checkout");
  expect(total).toBe("42.00");
  expect(size).toBeGreaterThan(0);
});
