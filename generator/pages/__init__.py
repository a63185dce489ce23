"""The lesson's pages: Jinja2 templates rendered with the results, the charts, the pictures and
marked regions of the lab's own source."""
