import { describe, expect, it } from "vitest";
import { CURRENCIES, formatMoney, isCurrency, orderTotal } from "../../workers/services/shop/money";
import { paintWatermark } from "../../workers/services/shop/watermark";

describe("shop money", () => {
  it("formats minor units in Russian with the currency's digits", () => {
    expect(formatMoney(150000, "RUB").replace(/\s/g, " ")).toBe("1 500,00 ₽");
    expect(formatMoney(4990, "EUR").replace(/\s/g, " ")).toBe("49,90 €");
    expect(formatMoney(1200, "JPY").replace(/\s/g, " ")).toMatch(/^1 200 (¥|JPY|JP¥)$/);
  });

  it("sums integer prices exactly (no floating-point drift)", () => {
    expect(orderTotal([{ price: 10 }, { price: 20 }, { price: 70 }])).toBe(100);
    expect(orderTotal(Array.from({ length: 10 }, () => ({ price: 1 })))).toBe(10);
    expect(orderTotal([])).toBe(0);
  });

  it("knows the accepted currencies only", () => {
    expect(CURRENCIES).toContain("RUB");
    expect(isCurrency("RUB")).toBe(true);
    expect(isCurrency("XXX")).toBe(false);
    expect(isCurrency("toString")).toBe(false);
  });
});

describe("watermark", () => {
  it("lightens stripes, darkens the frame and leaves other pixels alone", () => {
    const width = 100;
    const height = 60;
    const data = new Uint8ClampedArray(width * height * 4).fill(100);
    paintWatermark({ data, width, height });
    const at = (x: number, y: number) => data[(y * width + x) * 4];
    expect(at(0, 30)).toBeLessThan(100);
    const values = new Set<number>();
    for (let y = 5; y < height - 5; y++) for (let x = 5; x < width - 5; x++) values.add(at(x, y));
    expect([...values].some((v) => v > 100)).toBe(true);
    expect(values.has(100)).toBe(true);
  });
});

describe("the price field", () => {
  it("reads major units with a comma or a point and spaces, into minor units", async () => {
    const { parsePrice, priceInput } = await import("../../app/lib/shop-price");
    expect(parsePrice("1 500,50", "RUB")).toBe(150050);
    expect(parsePrice("1500.5", "EUR")).toBe(150050);
    expect(parsePrice("1500", "RUB")).toBe(150000);
    expect(parsePrice("1200", "JPY")).toBe(1200);
    expect(priceInput(150050, "RUB")).toBe("1500,50");
    expect(priceInput(1200, "JPY")).toBe("1200");
  });

  it("refuses zero, negatives, too many decimals, words and too large amounts", async () => {
    const { parsePrice } = await import("../../app/lib/shop-price");
    for (const bad of ["0", "0,00", "-5", "1,505", "12.5", "abc", "NaN", "", "1000000"]) {
      const currency = bad === "12.5" ? "JPY" : "RUB";
      expect(parsePrice(bad, currency), bad).toBeNull();
    }
  });
});
