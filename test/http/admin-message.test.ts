// One message by id or latest under /_mock/messages: GET, its HTML, DELETE; and DELETE of every message.

import request from "supertest";
import { describe, expect, it } from "vitest";
import type { CapturedMessage } from "../../src/index.js";
import { aTemplatesFolder, checked, expectAdminError, listMessages, listRequests, receipt, sendOk } from "../support/admin-calls.js";
import { aMockForThisTest as aTrackedMock, sharedMock } from "../support/helpers.js";

describe("GET /_mock/messages/{id}", () => {
  const shared = sharedMock();

  it("answers one message by its id", async () => {
    const mock = shared();
    const firstId = await sendOk(mock);
    await sendOk(mock, receipt());

    const response = await checked(await request(mock.app).get(`/_mock/messages/${firstId}`), "get", "/_mock/messages/{id}");

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: firstId, template_id: "welcome", to: "ada@example.com" });
    expect(response.body).toEqual(await mock.outbox.get(firstId));
  });

  it("answers the newest message for the id latest", async () => {
    const mock = shared();
    await sendOk(mock);
    const newestId = await sendOk(mock, receipt());

    const response = await checked(await request(mock.app).get("/_mock/messages/latest"), "get", "/_mock/messages/{id}");

    expect(response.status).toBe(200);
    expect((response.body as CapturedMessage).id).toBe(newestId);
  });

  it("answers 404 not_found for an unknown id", async () => {
    const mock = shared();
    await sendOk(mock);

    const response = await checked(await request(mock.app).get("/_mock/messages/msg_nope"), "get", "/_mock/messages/{id}");

    expectAdminError(response, 404, "not_found");
    expect((response.body as { error: { message: string } }).error.message).toContain("msg_nope");
  });

  it("answers 404 not_found for latest when the outbox is empty", async () => {
    const mock = shared();
    const response = await checked(await request(mock.app).get("/_mock/messages/latest"), "get", "/_mock/messages/{id}");
    expectAdminError(response, 404, "not_found");
  });
});

describe("GET /_mock/messages/{id}/html", () => {
  const shared = sharedMock();

  it("answers the rendered HTML as text/html behind a restrictive Content-Security-Policy", async () => {
    const mock = shared();
    const id = await sendOk(mock);
    const message = await mock.outbox.get(id);

    const response = await checked(await request(mock.app).get(`/_mock/messages/${id}/html`), "get", "/_mock/messages/{id}/html");

    expect(response.status).toBe(200);
    expect(response.headers["content-type"]).toMatch(/^text\/html/);
    expect(response.text).toBe(message?.html);
    expect(response.text).toContain("Welcome aboard, Ada!");
    expect(response.headers["content-security-policy"]).toContain("default-src 'none'");
    expect(response.headers["content-security-policy"]).not.toContain("script-src");
  });

  it("answers the HTML of the newest message for the id latest", async () => {
    const mock = shared();
    await sendOk(mock);
    await sendOk(mock, receipt());

    const response = await checked(await request(mock.app).get("/_mock/messages/latest/html"), "get", "/_mock/messages/{id}/html");

    expect(response.status).toBe(200);
    expect(response.text).toContain("Thank you for your order, Grace!");
  });

  it("answers 404 not_found for an unknown id", async () => {
    const mock = shared();
    const response = await checked(await request(mock.app).get("/_mock/messages/msg_nope/html"), "get", "/_mock/messages/{id}/html");
    expectAdminError(response, 404, "not_found");
  });

  it("answers 404 not_found for a message of a text-only template", async () => {
    const folder = await aTemplatesFolder({ "plain.yaml": "subject: Hello {name}\ntext: Hi {name}, plain text only.\n" });
    const mock = await aTrackedMock({ templates: folder });
    const id = await sendOk(mock, { template_id: "plain", data: { name: "Ada" } });
    expect((await mock.outbox.get(id))?.html).toBeNull();

    const response = await checked(await request(mock.app).get(`/_mock/messages/${id}/html`), "get", "/_mock/messages/{id}/html");

    expectAdminError(response, 404, "not_found");
  });
});

describe("DELETE /_mock/messages", () => {
  it("answers 204 and empties the outbox but keeps the journal", async () => {
    const mock = await aTrackedMock();
    await sendOk(mock);
    await sendOk(mock, receipt());

    const response = await checked(await request(mock.app).delete("/_mock/messages"), "delete", "/_mock/messages");

    expect(response.status).toBe(204);
    expect(response.text).toBe("");
    expect(await listMessages(mock)).toEqual({ messages: [], total: 0 });
    expect((await listRequests(mock)).total).toBe(2);
  });
});

describe("DELETE /_mock/messages/{id}", () => {
  const shared = sharedMock();

  it("answers 204 and deletes that message only, keeping the others and the journal", async () => {
    const mock = shared();
    const firstId = await sendOk(mock);
    const secondId = await sendOk(mock, receipt());

    const response = await checked(await request(mock.app).delete(`/_mock/messages/${firstId}`), "delete", "/_mock/messages/{id}");

    expect(response.status).toBe(204);
    expect(response.text).toBe("");
    expect((await request(mock.app).get(`/_mock/messages/${firstId}`)).status).toBe(404);
    expect(await listMessages(mock)).toMatchObject({ total: 1, messages: [{ id: secondId }] });
    expect((await listRequests(mock)).total).toBe(2);
  });

  it("deletes the newest message for the id latest, as GET reads it", async () => {
    const mock = shared();
    const olderId = await sendOk(mock);
    await sendOk(mock, receipt());

    const response = await checked(await request(mock.app).delete("/_mock/messages/latest"), "delete", "/_mock/messages/{id}");

    expect(response.status).toBe(204);
    expect(((await request(mock.app).get("/_mock/messages/latest")).body as CapturedMessage).id).toBe(olderId);
  });

  it("answers 404 not_found naming the id for an unknown or already deleted message", async () => {
    const mock = shared();
    const id = await sendOk(mock);
    await request(mock.app).delete(`/_mock/messages/${id}`);

    const response = await checked(await request(mock.app).delete(`/_mock/messages/${id}`), "delete", "/_mock/messages/{id}");

    expectAdminError(response, 404, "not_found");
    expect((response.body as { error: { message: string } }).error.message).toContain(id);
  });

  it("answers 404 not_found for latest when the outbox is empty", async () => {
    const mock = shared();
    const response = await checked(await request(mock.app).delete("/_mock/messages/latest"), "delete", "/_mock/messages/{id}");
    expectAdminError(response, 404, "not_found");
  });

  it("is offered to the library as mock.outbox.delete, which answers the id it deleted", async () => {
    const mock = shared();
    const id = await sendOk(mock);

    expect(await mock.outbox.delete("latest")).toBe(id);
    expect(await mock.outbox.delete(id)).toBeUndefined();
    expect(await mock.outbox.get(id)).toBeUndefined();
  });
});
