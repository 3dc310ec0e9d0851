import httpx

response = httpx.get("http://127.0.0.1:8080/v1/health")
print(response.status_code, response.json())
