/** The member pages' one stylesheet (pages.css, beside this module in src/ and in dist/), shared with the pages a member opens from a link. */
import { stylesheet } from '../http/stylesheets.js';

export const PAGES_STYLESHEET = stylesheet(new URL('./pages.css', import.meta.url), '/assets', 'pages');
