// The copy button is an extra: with JavaScript off the secret can still be selected and copied.
for (const button of document.querySelectorAll("[data-copy]")) {
  const field = document.getElementById(button.dataset.copy);
  button.hidden = false;
  button.addEventListener("click", async () => {
    field.select();
    await navigator.clipboard.writeText(field.value).catch(() => {});
    button.textContent = "Copied";
  });
}
