const response = await fetch("http://127.0.0.1:8080/v1/health");
console.log(response.status, await response.json());
