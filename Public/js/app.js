// Kith's progressive enhancement. Every page works without this file.
document.documentElement.classList.add("js");
