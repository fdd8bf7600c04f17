import { chromium } from "playwright-core";
import { readFileSync } from "node:fs";
const bundle = readFileSync("node_modules/mediabunny/dist/bundles/mediabunny.min.mjs", "utf8");
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--headless","--no-sandbox","--disable-gpu"] });
const page = await browser.newPage();
page.on("console", (m) => console.log("console:", m.text()));
await page.route("http://localhost:9/**", (r) => {
  const u = new URL(r.request().url());
  if (u.pathname === "/mb.mjs") return r.fulfill({ body: bundle, contentType: "text/javascript" });
  return r.fulfill({ body: "<html><body></body></html>", contentType: "text/html" });
});
await page.goto("http://localhost:9/");
const out = await page.evaluate(async () => {
  const mb = await import("/mb.mjs");
  const res = {};
  const play = async (bytes, type) => {
    const v = document.createElement("video"); v.muted = true;
    v.src = URL.createObjectURL(new Blob([bytes], { type }));
    document.body.append(v);
    return await new Promise((ok) => { v.onerror = () => ok("error " + v.error?.code); v.onloadeddata = () => ok("loaded rs=" + v.readyState); setTimeout(() => ok("timeout rs=" + v.readyState), 5000); });
  };
  // 10 s 1280x720 TS with audio
  const canvas = new OffscreenCanvas(1280, 720); const ctx = canvas.getContext("2d");
  const output = new mb.Output({ format: new mb.MpegTsOutputFormat(), target: new mb.BufferTarget() });
  const src = new mb.CanvasSource(canvas, { codec: "avc", bitrate: 2e6 });
  output.addVideoTrack(src, { frameRate: 25 });
  let t0 = performance.now();
  await output.start();
  for (let i = 0; i < 250; i++) { ctx.fillStyle = `hsl(${i*3},80%,50%)`; ctx.fillRect(0,0,1280,720); ctx.fillStyle="#fff"; ctx.fillRect(i*4,300,120,120); await src.add(i/25, 1/25); }
  await output.finalize();
  res.makeMs = performance.now() - t0;
  const ts = new Uint8Array(output.target.buffer); res.tsBytes = ts.length;
  for (const codec of ["vp8", "vp9", "avc"]) {
    t0 = performance.now();
    const input = new mb.Input({ source: new mb.BufferSource(ts), formats: mb.ALL_FORMATS });
    const o = new mb.Output({ format: codec === "avc" ? new mb.Mp4OutputFormat({ fastStart: "in-memory" }) : new mb.WebMOutputFormat(), target: new mb.BufferTarget() });
    const conv = await mb.Conversion.init({ input, output: o, video: { width: 640, codec, quality: new mb.Quality({ bitrate: 900000 }), forceTranscode: true } });
    await conv.execute();
    const b = new Uint8Array(o.target.buffer);
    res[codec] = { ms: Math.round(performance.now() - t0), bytes: b.length, play: await play(b, codec === "avc" ? "video/mp4" : "video/webm") };
  }
  // ProRes MOV with fake packets
  try {
    const o = new mb.Output({ format: new mb.MovOutputFormat(), target: new mb.BufferTarget() });
    const ps = new mb.EncodedVideoPacketSource("prores");
    o.addVideoTrack(ps, { frameRate: 25 });
    await o.start();
    for (let i = 0; i < 25; i++) {
      await ps.add(new mb.EncodedPacket(new Uint8Array(2000).fill(i), "key", i / 25, 1 / 25), i === 0 ? { decoderConfig: { codec: "apch", codedWidth: 1920, codedHeight: 1080 } } : undefined);
    }
    await o.finalize();
    const mov = new Uint8Array(o.target.buffer);
    res.movBytes = mov.length; res.movPlay = await play(mov, "video/quicktime");
    const input = new mb.Input({ source: new mb.BufferSource(mov), formats: mb.ALL_FORMATS });
    const vt = await input.getPrimaryVideoTrack(); res.movCodec = vt?.codec; res.movCanDecode = await vt?.canDecode();
  } catch (e) { res.movErr = String(e); }
  return res;
});
console.log(JSON.stringify(out, null, 1));
await browser.close();
