// The copy button is an extra: with JavaScript off the secret can still be selected and copied.
for (const button of document.querySelectorAll("[data-copy]")) {
  const field = document.getElementById(button.dataset.copy);
  button.hidden = false;
  button.addEventListener("click", async () => {
    // A field holds its text as a value; a snippet (<pre>) as its content.
    const text = "value" in field ? field.value : field.textContent;
    if ("select" in field) field.select();
    await navigator.clipboard.writeText(text).catch(() => {});
    button.textContent = "Copied";
  });
}
