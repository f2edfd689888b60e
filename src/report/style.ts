/** The report page's stylesheet, inlined into every page (no external asset). */
export const REPORT_CSS = `
:root{--ink:#1c2230;--muted:#5d6678;--line:#e3e6ec;--paper:#fff;--ground:#f4f5f8;--tools:#5b61e0;--prefix:#0b7a6e;--tail:#e9960c;--bp:#151a26;--good:#0f7b4f;--good-bg:#e7f6ee;--warn:#9a5b00;--warn-bg:#fff4e0;--bad:#b42318;--bad-bg:#fdecea;--accent:#3a3fc4}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;background:var(--ground);color:var(--ink);font:15px/1.5 -apple-system,"Segoe UI",Roboto,"Liberation Sans","Helvetica Neue",Arial,sans-serif}
main{max-width:1120px;margin:0 auto;padding:28px 20px 40px}
code{font-family:ui-monospace,"SF Mono",Menlo,Consolas,"Liberation Mono","DejaVu Sans Mono",monospace;font-size:.88em}
a{color:var(--accent)}
h1{font-size:28px;line-height:1.2;margin:2px 0 6px}
h2{font-size:20px;margin:0 0 8px}
h3{font-size:16px;margin:22px 0 6px}
.eyebrow{margin:0;color:var(--accent);font-weight:700;letter-spacing:.06em;text-transform:uppercase;font-size:12px}
.meta{margin:0 0 18px;color:var(--muted)}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(200px,1fr));gap:12px;margin-bottom:16px}
.card{background:var(--paper);border:1px solid var(--line);border-radius:12px;padding:12px 14px;min-width:0}
.card-label{color:var(--muted);font-size:12px;text-transform:uppercase;letter-spacing:.04em}
.card-value{font-size:22px;font-weight:700;margin:2px 0}
.card-detail{color:var(--muted);font-size:13px;overflow-wrap:anywhere}
.card-good{border-color:#a6dcc0;background:var(--good-bg)}.card-good .card-value{color:var(--good)}
.card-warn{border-color:#f3cf8e;background:var(--warn-bg)}.card-warn .card-value{color:var(--warn)}
.card-bad{border-color:#f1aca4;background:var(--bad-bg)}.card-bad .card-value{color:var(--bad)}
nav{display:flex;flex-wrap:wrap;gap:6px 16px;font-size:14px}
section{background:var(--paper);border:1px solid var(--line);border-radius:14px;padding:22px 22px 18px;margin-top:18px}
.lead{margin:0 0 12px;color:var(--muted);max-width:78ch}
figure{margin:12px 0}
figcaption{color:var(--muted);font-size:13px;margin-top:6px}
.legend{list-style:none;display:flex;flex-wrap:wrap;gap:4px 16px;padding:0;margin:8px 0;font-size:13px;color:var(--muted)}
.legend li{display:flex;align-items:center;gap:6px}
.swatch{display:inline-block;width:12px;height:12px;border-radius:3px;vertical-align:-1px;margin-right:6px}
.legend .swatch{margin-right:0}
.fill-tools{fill:var(--tools);background:var(--tools)}
.fill-static-prefix{fill:var(--prefix);background:var(--prefix)}
.fill-variant-tail{fill:var(--tail);background:var(--tail)}
.swatch-bp{background:var(--bp);width:3px;height:16px;border-radius:0}
.state-intact{fill:#8fcfb2;background:#8fcfb2}
.state-changed{fill:#c8343a;background:#c8343a}
.state-invalidated{fill:#f4a7a9;background:#f4a7a9}
.state-new{fill:#8fb8f0;background:#8fb8f0}
.lanes{display:grid;gap:10px}
.lane{display:grid;grid-template-columns:150px 1fr;align-items:center;gap:12px}
.lane-name strong{display:block;font-size:14px;overflow-wrap:anywhere}
.lane-name small{color:var(--muted);font-size:12px}
.lane-track{position:relative;min-width:0}
svg.bar{display:block;width:100%;height:36px}
svg.bar .track{fill:#eef0f4}
svg.bar rect{stroke:#fff;stroke-width:2;vector-effect:non-scaling-stroke}
svg.bar .bp{stroke:var(--bp);stroke-width:3;vector-effect:non-scaling-stroke}
.seg-labels{position:absolute;inset:4px 0;pointer-events:none}
.seg-labels .seg{position:absolute;top:0;height:28px;line-height:28px;padding:0 7px;color:#fff;font-size:12px;font-weight:600;display:flex;flex-wrap:wrap;column-gap:.3em;align-content:flex-start;overflow:hidden}
.seg-labels .seg span{white-space:nowrap}
.seg-labels .seg-on-light{color:var(--ink)}
.seg-labels .seg-name{min-width:0;overflow:hidden;text-overflow:ellipsis}
.seg-labels .seg-figure{flex:none}
.lane-bracket .lane-track{height:26px}
.bracket{position:absolute;left:0;bottom:0;height:12px;border:2px solid var(--ink);border-bottom:0;border-radius:6px 6px 0 0}
.bracket span{position:absolute;left:8px;bottom:8px;background:var(--paper);padding:0 6px;font-size:12px;font-weight:600;white-space:nowrap}
.lane-axis .lane-track{height:16px;border-top:1px solid var(--line)}
.lane-axis span{position:absolute;top:2px;transform:translateX(-50%);font-size:11px;color:var(--muted)}
.lane-axis span:first-child{transform:none}
.table-wrap{overflow-x:auto;margin:10px 0}
table{border-collapse:collapse;width:100%;font-size:13.5px}
caption{text-align:left;font-weight:700;padding:4px 0 6px;font-size:14px}
th,td{text-align:left;padding:6px 10px;border-bottom:1px solid var(--line);vertical-align:top}
thead th{font-size:12px;color:var(--muted);font-weight:600;text-transform:uppercase;letter-spacing:.03em;border-bottom:2px solid var(--line);white-space:nowrap}
tbody th{font-weight:600}
.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tr.default td{background:#f3f4ff}
.pill{display:inline-block;font-size:11px;font-weight:700;color:var(--accent);background:#e3e5ff;border-radius:999px;padding:0 7px;margin-left:4px}
.costs td.num{position:relative}
.cost-bar{display:inline-block;height:8px;max-width:90px;background:#c9ccf6;border-radius:4px;margin-right:8px;vertical-align:0}
.profile{font-size:14px}
.muted{color:var(--muted)}
.ok{color:var(--good);font-weight:600}
.bad{color:var(--bad);font-weight:600}
.worse{color:var(--bad)}.better{color:var(--good)}
.verdict{border-radius:10px;padding:10px 14px;margin:8px 0 12px}
.verdict-good{background:var(--good-bg);border:1px solid #a6dcc0}
.verdict-warn{background:var(--warn-bg);border:1px solid #f3cf8e}
.verdict-bad{background:var(--bad-bg);border:1px solid #f1aca4}
.graph-wrap{overflow-x:auto;padding:4px 0}
svg.graph{display:block;max-width:none;font-size:13px}
svg.graph .node rect{stroke-width:1.5}
.node-variant rect{fill:#1f2540;stroke:#1f2540}.node-variant text{fill:#fff}.node-variant .node-detail{fill:#c3c8e0}
.node-workflow rect{fill:#fff5e3;stroke:var(--tail)}
.node-reference rect{fill:#e4f4f1;stroke:var(--prefix)}
.node-title{font-weight:700;fill:var(--ink)}
.node-detail{fill:var(--muted);font-size:12px}
.edge-requires{fill:none;stroke:#6b7385;stroke-width:1.6}
.edge-preload{fill:none;stroke:var(--accent);stroke-width:2;stroke-dasharray:2 4;stroke-linecap:round}
.edge-conflict{fill:none;stroke:var(--bad);stroke-width:1.8;stroke-dasharray:6 4}
.arrow-head{fill:#6b7385}
.badge rect{stroke:#fff;stroke-width:2}.badge text{fill:#fff;font-size:11px;font-weight:700}
.badge-warning rect{fill:#a85a00}.badge-error rect{fill:var(--bad)}
.edge-sample-preload,.edge-sample-requires,.edge-sample-conflict{height:0;width:22px;border-radius:0;border-top:2px solid #6b7385}
.edge-sample-preload{border-top:3px dotted var(--accent)}
.edge-sample-conflict{border-top:2px dashed var(--bad)}
.swatch-finding{background:#a85a00;border-radius:50%}
.type{display:inline-block;font-size:12px;font-weight:600;border-radius:999px;padding:0 8px}
.type-workflow{background:#fff0d4;color:#8a5300}
.type-reference{background:#dcf1ed;color:#0b6b60}
.findings{list-style:none;margin:0;padding:0}
.finding{margin:0 0 4px}
.sev{display:inline-block;font-size:11px;font-weight:700;text-transform:uppercase;border-radius:4px;padding:0 5px}
.finding-error .sev{background:var(--bad-bg);color:var(--bad)}
.finding-warning .sev{background:var(--warn-bg);color:var(--warn)}
.finding-note .sev{background:#eef0f4;color:var(--muted)}
.rate-cell{width:180px;min-width:120px}
svg.rate{display:block;width:100%;height:16px}
.rate-track{fill:#eef0f4}.rate-interval{fill:#bcc0f5}.rate-mark{fill:var(--accent)}
tr.expectation th{font-weight:400;padding-left:26px}
tr.regressed{background:var(--bad-bg)}
footer{color:var(--muted);font-size:12.5px;margin-top:18px}
@media (max-width:640px){
main{padding:18px 12px 28px}
h1{font-size:23px}
section{padding:16px 14px 12px;border-radius:12px}
.lane{grid-template-columns:1fr;gap:2px}
.lane-name{display:flex;gap:8px;align-items:baseline}
.lane-name strong{display:inline}
.lane-axis .lane-name,.lane-bracket .lane-name{display:none}
.cards{grid-template-columns:1fr 1fr}
.card-value{font-size:18px}
th,td{padding:5px 7px}
}
@media print{
body{background:#fff}
section{break-inside:avoid}
.table-wrap,.graph-wrap{overflow:visible}
table{table-layout:fixed}
th,td,thead th,.num{white-space:normal;overflow-wrap:anywhere}
svg.graph{max-width:100%;height:auto}
}
`;
