// Records the order in which the widgets report al-ready.
window.loadOrder = [];
document.addEventListener('al-ready', (e) => window.loadOrder.push({ id: e.target.id }));
