"""Charts and pictures drawn from the results dict: Plotly chart specs, their static stand-ins
and HTML, and the SVG pictures. Nothing is computed here that results.json does not hold."""
