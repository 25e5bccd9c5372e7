// The public transfer explorer in a real browser (Debian chromium, playwright-core) against the real
// service on a fresh install (live empty, the sandbox seeded): no sign-in; De Anza College → UC
// Berkeley chosen by name with the keyboard alone, the agreement read and searched, courses checked
// (one from the catalog, one typed), at a desktop's width and at a phone's (375 px); axe-core, no
// console error and a screenshot on each view, and no record id on the screen.
import { expect } from "chai";
import type { Page } from "playwright-core";
import { buildExplorer } from "../../scripts/build-explorer.ts";
import { createTestApp, type TestApp } from "../helpers/app.ts";
import { checkPage, expectNoPageProblems, openPage, type ServedPage, servedPage, type WatchedPage } from "./browser.ts";

const IDS = /\b(?:eq|crs|inst|key|org)_[0-9A-Za-z]{4,}/;

async function chooseByKeyboard(page: Page, label: string, text: string, option: RegExp): Promise<void> {
  const field = page.getByRole("combobox", { name: label });
  await field.focus();
  await page.keyboard.type(text);
  await page.getByRole("option", { name: option }).first().waitFor();
  const options = await page.getByRole("option").allTextContents();
  const index = options.findIndex((name) => option.test(name));
  expect(index, `options for "${text}": ${options.join(" | ")}`).to.be.at.least(0);
  for (let i = 0; i <= index; i++) await page.keyboard.press("ArrowDown");
  await page.keyboard.press("Enter");
}

async function expectNoIds(page: Page): Promise<void> {
  const text = await page.evaluate("document.body.innerText");
  expect(text as string).not.to.match(IDS);
}

describe("the public explorer in the browser", function () {
  this.timeout(180_000);
  let t: TestApp;
  let served: ServedPage;
  let page: Page;
  let phone: WatchedPage | undefined;
  let firstSource = "";

  before(async function () {
    this.timeout(400_000);
    await buildExplorer();
    t = await createTestApp();
    await t.app.context.services.sandbox.seedSandboxIfEmpty();
    served = await servedPage(t);
    page = served.page;
  });

  after(async () => {
    await phone?.context.close();
    await served?.close();
    await t?.close();
  });

  expectNoPageProblems(() => served);
  expectNoPageProblems(() => phone);

  it("opens on the sandbox while live holds no rules, and finds De Anza College → UC Berkeley by name with the keyboard", async () => {
    await page.goto(`${served.origin}/explore`);
    await page.getByRole("heading", { level: 1, name: "Will my courses transfer?" }).waitFor();
    // The page chooses the environment once it has read what each holds.
    await page.getByText("Live data holds no transfer rules yet").waitFor();
    expect(await page.getByRole("radio", { name: "Sandbox (demonstration)" }).isChecked()).to.equal(true);
    await page.getByRole("link", { name: "CC BY 4.0" }).waitFor();

    await chooseByKeyboard(page, "I am coming from", "de anza", /De Anza College/);
    await chooseByKeyboard(page, "I want to transfer to", "berkeley ca", /University of California-Berkeley/);
    await page.getByRole("heading", { level: 2, name: /De Anza College.*University of California-Berkeley/ }).waitFor();
    expect(new URL(page.url()).pathname).to.equal("/explore/113333/110635");
    const summary = await page.locator(".summary").textContent();
    expect(summary).to.match(/\d+ transfer rules? (is|are) in force today/);
    firstSource = ((await page.locator(".rule .course strong").first().textContent()) ?? "").trim();
    expect(firstSource).to.match(/\w+ \w+/);
    await expectNoIds(page);
    await checkPage(page, "explorer-agreement");
  });

  it("searches within the agreement by course code", async () => {
    const rules = await page.locator(".rule").count();
    await page.getByLabel("Search this agreement").fill(firstSource.toLowerCase());
    await page.getByText(/of \d+ rules? match/).waitFor();
    const shown = await page.locator(".rule").count();
    expect(shown).to.be.within(1, rules);
    for (const text of await page.locator(".rule").allTextContents()) expect(text).to.include(firstSource);
    await page.getByLabel("Search this agreement").fill("");
  });

  it("answers 'will my courses transfer?' for a catalog course and a typed one, in names and with totals", async () => {
    await chooseByKeyboard(page, "Add a course from De Anza College", firstSource, new RegExp(`^${firstSource} ·`));
    await page.getByRole("combobox", { name: "Add a course from De Anza College" }).focus();
    await page.keyboard.type("PHIL 999");
    await page.getByRole("option", { name: /Add “PHIL 999” as typed/ }).waitFor();
    await page.keyboard.press("ArrowDown");
    const typedIndex = (await page.getByRole("option").allTextContents()).findIndex((name) =>
      name.includes("as typed"),
    );
    for (let i = 0; i < typedIndex; i++) await page.keyboard.press("ArrowDown");
    await page.keyboard.press("Enter");
    await page.getByLabel("Title (optional)").fill("Philosophy of Science");
    await page.getByLabel("Grade").first().selectOption("B");
    await page.getByLabel("Completed on").first().fill("2025-06-12");
    await page.getByRole("button", { name: /Check these 2 courses/ }).press("Enter");

    const results = page.getByRole("heading", { level: 3, name: "Your results at University of California-Berkeley" });
    await results.waitFor();
    expect(await page.evaluate("document.activeElement.textContent")).to.equal(
      "Your results at University of California-Berkeley",
    );
    const totals = await page.locator(".totals").textContent();
    expect(totals).to.match(/of 2 courses count at University of California-Berkeley/);
    await page.getByText("Not in the catalog", { exact: true }).waitFor();
    await page.getByText("Why PHIL 999").click();
    await page.getByText(/does not list PHIL 999 \(Philosophy of Science\)/).waitFor();
    await expectNoIds(page);
    await checkPage(page, "explorer-evaluation");
  });

  it("opens a pair's permalink at a phone's width (375 px) without sideways scrolling", async () => {
    phone = await openPage(served.browser);
    await phone.page.setViewportSize({ width: 375, height: 812 });
    await phone.page.goto(`${served.origin}/explore/113333/110635`);
    await phone.page
      .getByRole("heading", { level: 2, name: /De Anza College.*University of California-Berkeley/ })
      .waitFor();
    const width = await phone.page.evaluate("document.documentElement.scrollWidth");
    expect(width).to.be.at.most(375);
    await expectNoIds(phone.page);
    await checkPage(phone.page, "explorer-phone");
  });

  it("switches to live, where a fresh install holds no agreement yet", async () => {
    await page.getByRole("radio", { name: "Live" }).check();
    expect(new URL(page.url()).search).to.equal("?env=live");
    await page.getByRole("combobox", { name: "I am coming from" }).fill("de anza");
    await page.locator("p.hint", { hasText: "No match. Try another spelling." }).waitFor();
  });
});
