// The review page's own styles; diff2html's stylesheet is inlined beside them.
export const PAGE_CSS = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #1f2328; }
h1 { margin: 0 0 .4em; font-size: 1.6em; }
h2 { margin: 1.6em 0 .4em; font-size: 1.2em; border-bottom: 1px solid #d0d7de; padding-bottom: .2em; }
h3 { font-size: 1em; margin: .2em 0 .4em; }
.facts { display: grid; grid-template-columns: max-content 1fr; gap: .1em 1em; margin: 0 0 .6em; }
.facts dt { font-weight: 600; }
.facts dd { margin: 0; font-family: ui-monospace, monospace; }
.totals { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: .5em; }
.warning { background: #fff8c5; border: 1px solid #d4a72c; padding: .4em .6em; }
table.suggestions { border-collapse: collapse; margin: 1em 0; }
table.suggestions th, table.suggestions td { border: 1px solid #d0d7de; padding: .25em .6em; text-align: left; }
table.suggestions th { background: #f6f8fa; }
.status { display: inline-block; border-radius: 1em; padding: 0 .6em; font-weight: 600; }
.status-ok { background: #dafbe1; color: #116329; }
.status-repaired { background: #ddf4ff; color: #0a3069; }
.status-not_applied { background: #d8f3f0; color: #0b4f47; }
.status-failed { background: #ffebe9; color: #a40e26; }
.status-agent_unreachable { background: #fbefff; color: #6e2390; }
.status-skipped { background: #eaeef2; color: #57606a; }
.status-unfinished { background: #fff1e5; color: #953800; }
.panes { display: grid; grid-template-columns: 1fr 1fr; gap: 1em; align-items: start; }
.pane { min-width: 0; }
.pane-empty p { color: #57606a; }
.rejection, .raw-patch { white-space: pre-wrap; background: #fff5f5; border: 1px solid #ffcecb; padding: .4em; font-size: 12px; }
.first-error code { white-space: pre-wrap; }
.transcripts { margin-top: .6em; }
.d2h-file-collapse { display: none; }
.funnel { margin: .6em 0; }
.funnel figcaption { font-weight: 600; margin-bottom: .2em; }
.funnel ol { list-style: none; padding: 0; margin: 0; display: grid; grid-template-columns: max-content 24em max-content; gap: .15em .6em; align-items: center; }
.funnel li { display: contents; }
.funnel .track { background: #eaeef2; height: .9em; }
.funnel .bar { display: block; height: 100%; background: #0969da; }
.filter { display: flex; flex-wrap: wrap; gap: .5em; align-items: center; margin: 1em 0 0; }
.filter label { cursor: pointer; font-weight: normal; }
.change { margin: .4em 0 .8em; }
.change-summary { font-weight: 600; }
.change-note { color: #953800; }
.since { display: inline-block; background: #fff8c5; color: #7d4e00; border: 1px solid #d4a72c; border-radius: .3em; padding: 0 .4em; }
.race-pairs { list-style: none; padding-left: 0; }
.race-pair-body { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr) minmax(0, 2fr); gap: .6em; align-items: start; margin: .4em 0 .8em; }
.race-access pre { background: #fff; border: 1px solid #ff8182; padding: .3em .5em; margin: 0; white-space: pre-wrap; }
.race-where { margin: 0 0 .2em; font-size: .9em; color: #57606a; }
.race-fault { margin: .3em 0; }
.may-race { display: inline-block; background: #ffebe9; color: #a40e26; border: 1px solid #ff8182; border-radius: .3em; padding: 0 .4em; font-weight: 600; }
/* Directive lines are long; wrapped, both panes show them whole. */
.d2h-code-line { display: flex; white-space: normal; width: auto; }
.d2h-code-line-prefix { flex: none; }
.d2h-code-line-ctn { flex: 1; white-space: pre-wrap; overflow-wrap: anywhere; }
`;
