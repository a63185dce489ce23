"""What the tests share, in one package (test modules import no other test module):

- `tiers`: the tiers a test belongs to (browser, fulldata, campaign, process), given by the
  fixtures it uses, and the guard that keeps every other test from starting a process;
- `sitebuild`: the site and the campaigns built once per test run, shared by every worker;
- `browser`: serving a built site and driving Debian's chromium with Playwright;
- `labrun`: the lab's runner with stand-in executors and a stand-in slow host;
- `modules`, `demo`, `rawfiles`: the explorer's modules loaded fresh, a demo file made from a
  campaign's results, a run file's metadata rewritten.
"""
