/**
 * The dev console page: pick a function, edit a request, send it with trigger console_debug
 * (or cancel it), read the response and that request's log lines as they arrive (filtered by
 * level and text), follow every request the server answers, replay recent requests, copy a
 * request as curl or fill the editor from one. The entry of the page's bundle: the controller
 * (console-page.ts) holds the one store (store.ts) and the parts that draw it.
 */
import { ConsolePage } from './console-page.js';

const page = new ConsolePage();
page.start().catch((error: unknown) => ConsolePage.showFailure(error));
