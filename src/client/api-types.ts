/**
 * The API's paths, parameters and answers as TypeScript types, generated from the OpenAPI
 * document (/api2/openapi.json) by openapi-typescript. Do not edit: run `npm run client-types`.
 */
export interface paths {
    "/api2/login/": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Check a member’s login and password
         * @description OK hands out a new session id; FAIL says why not. Unknown login, wrong password, a Deleted member and a locked member all answer "wrong login or password", in about the same time. GET takes the same parameters in the query string (a key or a password in a URL can reach logs on the way: prefer POST).
         */
        get: {
            parameters: {
                query: {
                    /** @description the account name */
                    user: string;
                    /** @description the account’s API key */
                    api_key?: string;
                    /** @description the member’s login, compared case-insensitively */
                    login: string;
                    /** @description the member’s password */
                    password: string;
                    /** @description the member’s IPv4 or IPv6 address, recorded with the attempt; needs api_key; a forwarded list (`203.0.113.5, 10.0.0.1`) gives its first valid address */
                    IP?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK, FAIL, or ERROR (bad parameters, or a wrong api_key with IP) */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "OK";
                            /** @enum {string} */
                            message: "";
                            /** @description an opaque random session id (at least 128 bits) */
                            session: string;
                            /** @description the member’s URL, else the account’s default, else "" */
                            ok_url: string;
                        } | {
                            /** @enum {string} */
                            result: "FAIL";
                            /** @enum {string} */
                            message: "wrong login or password" | "member suspended";
                            /** @description the member’s failure URL, else the account’s default, else "" */
                            fail_url: string;
                        } | {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description unknown path */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description method not allowed on this path (with Allow) */
                405: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description the request took too long to arrive */
                408: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description body, a parameter or the parameter count too large */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description unsupported content type */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description rate limited (wrong API keys from this address, or the account’s request rate); with Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description internal error (never with internals) */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description store unavailable, or password hashing at capacity; with Retry-After */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
            };
        };
        put?: never;
        /**
         * Check a member’s login and password
         * @description OK hands out a new session id; FAIL says why not. Unknown login, wrong password, a Deleted member and a locked member all answer "wrong login or password", in about the same time.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            /** @description api_key is needed only with IP */
            requestBody: {
                content: {
                    "application/x-www-form-urlencoded": {
                        /**
                         * @description the account name
                         * @example demo
                         */
                        user: string;
                        /** @description the account’s API key */
                        api_key?: string;
                        /** @description the member’s login, compared case-insensitively */
                        login: string;
                        /** @description the member’s password */
                        password: string;
                        /**
                         * @description the member’s IPv4 or IPv6 address, recorded with the attempt; needs api_key; a forwarded list (`203.0.113.5, 10.0.0.1`) gives its first valid address
                         * @example 203.0.113.5
                         */
                        IP?: string;
                    };
                    "multipart/form-data": {
                        /**
                         * @description the account name
                         * @example demo
                         */
                        user: string;
                        /** @description the account’s API key */
                        api_key?: string;
                        /** @description the member’s login, compared case-insensitively */
                        login: string;
                        /** @description the member’s password */
                        password: string;
                        /**
                         * @description the member’s IPv4 or IPv6 address, recorded with the attempt; needs api_key; a forwarded list (`203.0.113.5, 10.0.0.1`) gives its first valid address
                         * @example 203.0.113.5
                         */
                        IP?: string;
                    };
                    "application/json": {
                        /**
                         * @description the account name
                         * @example demo
                         */
                        user: string;
                        /** @description the account’s API key */
                        api_key?: string;
                        /** @description the member’s login, compared case-insensitively */
                        login: string;
                        /** @description the member’s password */
                        password: string;
                        /**
                         * @description the member’s IPv4 or IPv6 address, recorded with the attempt; needs api_key; a forwarded list (`203.0.113.5, 10.0.0.1`) gives its first valid address
                         * @example 203.0.113.5
                         */
                        IP?: string;
                    };
                };
            };
            responses: {
                /** @description OK, FAIL, or ERROR (bad parameters, or a wrong api_key with IP) */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "OK";
                            /** @enum {string} */
                            message: "";
                            /** @description an opaque random session id (at least 128 bits) */
                            session: string;
                            /** @description the member’s URL, else the account’s default, else "" */
                            ok_url: string;
                        } | {
                            /** @enum {string} */
                            result: "FAIL";
                            /** @enum {string} */
                            message: "wrong login or password" | "member suspended";
                            /** @description the member’s failure URL, else the account’s default, else "" */
                            fail_url: string;
                        } | {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description unknown path */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description method not allowed on this path (with Allow) */
                405: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description the request took too long to arrive */
                408: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description body, a parameter or the parameter count too large */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description unsupported content type */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description rate limited (wrong API keys from this address, or the account’s request rate); with Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description internal error (never with internals) */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description store unavailable, or password hashing at capacity; with Retry-After */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api2/create/": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Create a member
         * @description Any parameter that is not listed is a profile field. Periods are calendar periods from the moment of the call. Both spellings of time expiration are accepted (set_is_exp_time… and set_isexptime…). GET takes the same parameters in the query string (a key or a password in a URL can reach logs on the way: prefer POST).
         */
        get: {
            parameters: {
                query: {
                    /** @description the account name */
                    user: string;
                    /** @description the account’s API key */
                    api_key: string;
                    /** @description login: 1 to 64 characters, no white space; unique in the account, compared case-insensitively */
                    _login: string;
                    /** @description e-mail address: one plain address (at most 254 characters, one @, no white space, none of , ; : < > ( ) " \ [ ]), the only one mail goes to. Optional, as the hosted original had it (a member without one gets no mail), unless the account requires it (account set --require-email on) */
                    _email?: string;
                    /** @description password (account minimum, default 8, to 1024 characters); generated when empty or left out */
                    _password?: string;
                    /** @description URL handed out after a successful login: absolute http(s) or a path starting with / */
                    set_urlok?: string;
                    /** @description URL handed out after a failed login: absolute http(s) or a path starting with / */
                    set_urlwrong?: string;
                    /** @description login-count expiration: 0 none, 1 suspend, 2 delete when the allowance is used up */
                    set_is_exp_logins?: "0" | "1" | "2";
                    /** @description successful logins allowed (needed with mode 1 or 2) */
                    set_exp_logins?: string;
                    /** @description time expiration: 0 none, 1 suspend, 2 delete when the period ends */
                    set_is_exp_time?: "0" | "1" | "2";
                    /** @description length of the period, a positive whole number (needed with mode 1 or 2) */
                    set_exp_time?: string;
                    /** @description unit of the period: m minutes, h hours, D days, M months, Y years (case-sensitive) */
                    set_exp_time_type?: "m" | "h" | "D" | "M" | "Y";
                    /** @description time expiration: 0 none, 1 suspend, 2 delete when the period ends (other spelling) */
                    set_isexptime?: "0" | "1" | "2";
                    /** @description length of the period, a positive whole number (needed with mode 1 or 2) (other spelling) */
                    set_exptime?: string;
                    /** @description unit of the period: m minutes, h hours, D days, M months, Y years (case-sensitive) (other spelling) */
                    set_exptimet?: "m" | "h" | "D" | "M" | "Y";
                    /** @description the member’s IPv4 or IPv6 address at registration; a forwarded list (`203.0.113.5, 10.0.0.1`) gives its first valid address */
                    IP?: string;
                    /** @description 1 mails the member the account’s welcome mail, with its verify_url (when the account has a mail server: account set --smtp-url) */
                    send_welcome?: "0" | "1";
                    /** @description the same as _login, when _login is not sent (as code written for the hosted original sends it) */
                    login?: string;
                    /** @description the same as _email, when _email is not sent (as code written for the hosted original sends it) */
                    email?: string;
                    /** @description the same as _password, when _password is not sent (as code written for the hosted original sends it) */
                    password?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK, or ERROR (bad parameters, wrong api key, login already taken) */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "OK";
                            /** @enum {string} */
                            message: "";
                            /** @description the member id */
                            id: string;
                            login: string;
                            /** @description the password, as sent or as generated */
                            password: string;
                            /**
                             * Format: uri
                             * @description opening it (GET) marks the e-mail address verified
                             */
                            verify_url: string;
                            /**
                             * @description present when a mail was asked for (send_welcome=1, send_mail=1) and none is sent: the account has no mail settings (account set --smtp-url), or the member has no e-mail address
                             * @enum {string}
                             */
                            mail?: "not sent: no mail settings" | "not sent: no address";
                        } | {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description unknown path */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description method not allowed on this path (with Allow) */
                405: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description the request took too long to arrive */
                408: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description body, a parameter or the parameter count too large */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description unsupported content type */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description rate limited (wrong API keys from this address, or the account’s request rate); with Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description internal error (never with internals) */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description store unavailable, or password hashing at capacity; with Retry-After */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
            };
        };
        put?: never;
        /**
         * Create a member
         * @description Any parameter that is not listed is a profile field. Periods are calendar periods from the moment of the call. Both spellings of time expiration are accepted (set_is_exp_time… and set_isexptime…).
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            /** @description the member to create (login, email and password stand for _login, _email and _password when those are not sent) */
            requestBody: {
                content: {
                    "application/x-www-form-urlencoded": {
                        /**
                         * @description the account name
                         * @example demo
                         */
                        user: string;
                        /** @description the account’s API key */
                        api_key: string;
                        /** @description login: 1 to 64 characters, no white space; unique in the account, compared case-insensitively */
                        _login: string;
                        /**
                         * Format: email
                         * @description e-mail address: one plain address (at most 254 characters, one @, no white space, none of , ; : < > ( ) " \ [ ]), the only one mail goes to. Optional, as the hosted original had it (a member without one gets no mail), unless the account requires it (account set --require-email on)
                         */
                        _email?: string;
                        /** @description password (account minimum, default 8, to 1024 characters); generated when empty or left out */
                        _password?: string;
                        /** @description URL handed out after a successful login: absolute http(s) or a path starting with / */
                        set_urlok?: string;
                        /** @description URL handed out after a failed login: absolute http(s) or a path starting with / */
                        set_urlwrong?: string;
                        /**
                         * @description login-count expiration: 0 none, 1 suspend, 2 delete when the allowance is used up
                         * @enum {string}
                         */
                        set_is_exp_logins?: "0" | "1" | "2";
                        /** @description successful logins allowed (needed with mode 1 or 2) */
                        set_exp_logins?: string;
                        /**
                         * @description time expiration: 0 none, 1 suspend, 2 delete when the period ends
                         * @enum {string}
                         */
                        set_is_exp_time?: "0" | "1" | "2";
                        /** @description length of the period, a positive whole number (needed with mode 1 or 2) */
                        set_exp_time?: string;
                        /**
                         * @description unit of the period: m minutes, h hours, D days, M months, Y years (case-sensitive)
                         * @enum {string}
                         */
                        set_exp_time_type?: "m" | "h" | "D" | "M" | "Y";
                        /**
                         * @description time expiration: 0 none, 1 suspend, 2 delete when the period ends (other spelling)
                         * @enum {string}
                         */
                        set_isexptime?: "0" | "1" | "2";
                        /** @description length of the period, a positive whole number (needed with mode 1 or 2) (other spelling) */
                        set_exptime?: string;
                        /**
                         * @description unit of the period: m minutes, h hours, D days, M months, Y years (case-sensitive) (other spelling)
                         * @enum {string}
                         */
                        set_exptimet?: "m" | "h" | "D" | "M" | "Y";
                        /**
                         * @description the member’s IPv4 or IPv6 address at registration; a forwarded list (`203.0.113.5, 10.0.0.1`) gives its first valid address
                         * @example 203.0.113.5
                         */
                        IP?: string;
                        /**
                         * @description 1 mails the member the account’s welcome mail, with its verify_url (when the account has a mail server: account set --smtp-url)
                         * @enum {string}
                         */
                        send_welcome?: "0" | "1";
                        /** @description the same as _login, when _login is not sent (as code written for the hosted original sends it) */
                        login?: string;
                        /** @description the same as _email, when _email is not sent (as code written for the hosted original sends it) */
                        email?: string;
                        /** @description the same as _password, when _password is not sent (as code written for the hosted original sends it) */
                        password?: string;
                    } & {
                        [key: string]: string;
                    };
                    "multipart/form-data": {
                        /**
                         * @description the account name
                         * @example demo
                         */
                        user: string;
                        /** @description the account’s API key */
                        api_key: string;
                        /** @description login: 1 to 64 characters, no white space; unique in the account, compared case-insensitively */
                        _login: string;
                        /**
                         * Format: email
                         * @description e-mail address: one plain address (at most 254 characters, one @, no white space, none of , ; : < > ( ) " \ [ ]), the only one mail goes to. Optional, as the hosted original had it (a member without one gets no mail), unless the account requires it (account set --require-email on)
                         */
                        _email?: string;
                        /** @description password (account minimum, default 8, to 1024 characters); generated when empty or left out */
                        _password?: string;
                        /** @description URL handed out after a successful login: absolute http(s) or a path starting with / */
                        set_urlok?: string;
                        /** @description URL handed out after a failed login: absolute http(s) or a path starting with / */
                        set_urlwrong?: string;
                        /**
                         * @description login-count expiration: 0 none, 1 suspend, 2 delete when the allowance is used up
                         * @enum {string}
                         */
                        set_is_exp_logins?: "0" | "1" | "2";
                        /** @description successful logins allowed (needed with mode 1 or 2) */
                        set_exp_logins?: string;
                        /**
                         * @description time expiration: 0 none, 1 suspend, 2 delete when the period ends
                         * @enum {string}
                         */
                        set_is_exp_time?: "0" | "1" | "2";
                        /** @description length of the period, a positive whole number (needed with mode 1 or 2) */
                        set_exp_time?: string;
                        /**
                         * @description unit of the period: m minutes, h hours, D days, M months, Y years (case-sensitive)
                         * @enum {string}
                         */
                        set_exp_time_type?: "m" | "h" | "D" | "M" | "Y";
                        /**
                         * @description time expiration: 0 none, 1 suspend, 2 delete when the period ends (other spelling)
                         * @enum {string}
                         */
                        set_isexptime?: "0" | "1" | "2";
                        /** @description length of the period, a positive whole number (needed with mode 1 or 2) (other spelling) */
                        set_exptime?: string;
                        /**
                         * @description unit of the period: m minutes, h hours, D days, M months, Y years (case-sensitive) (other spelling)
                         * @enum {string}
                         */
                        set_exptimet?: "m" | "h" | "D" | "M" | "Y";
                        /**
                         * @description the member’s IPv4 or IPv6 address at registration; a forwarded list (`203.0.113.5, 10.0.0.1`) gives its first valid address
                         * @example 203.0.113.5
                         */
                        IP?: string;
                        /**
                         * @description 1 mails the member the account’s welcome mail, with its verify_url (when the account has a mail server: account set --smtp-url)
                         * @enum {string}
                         */
                        send_welcome?: "0" | "1";
                        /** @description the same as _login, when _login is not sent (as code written for the hosted original sends it) */
                        login?: string;
                        /** @description the same as _email, when _email is not sent (as code written for the hosted original sends it) */
                        email?: string;
                        /** @description the same as _password, when _password is not sent (as code written for the hosted original sends it) */
                        password?: string;
                    } & {
                        [key: string]: string;
                    };
                    "application/json": {
                        /**
                         * @description the account name
                         * @example demo
                         */
                        user: string;
                        /** @description the account’s API key */
                        api_key: string;
                        /** @description login: 1 to 64 characters, no white space; unique in the account, compared case-insensitively */
                        _login: string;
                        /**
                         * Format: email
                         * @description e-mail address: one plain address (at most 254 characters, one @, no white space, none of , ; : < > ( ) " \ [ ]), the only one mail goes to. Optional, as the hosted original had it (a member without one gets no mail), unless the account requires it (account set --require-email on)
                         */
                        _email?: string;
                        /** @description password (account minimum, default 8, to 1024 characters); generated when empty or left out */
                        _password?: string;
                        /** @description URL handed out after a successful login: absolute http(s) or a path starting with / */
                        set_urlok?: string;
                        /** @description URL handed out after a failed login: absolute http(s) or a path starting with / */
                        set_urlwrong?: string;
                        /**
                         * @description login-count expiration: 0 none, 1 suspend, 2 delete when the allowance is used up
                         * @enum {string}
                         */
                        set_is_exp_logins?: "0" | "1" | "2";
                        /** @description successful logins allowed (needed with mode 1 or 2) */
                        set_exp_logins?: string;
                        /**
                         * @description time expiration: 0 none, 1 suspend, 2 delete when the period ends
                         * @enum {string}
                         */
                        set_is_exp_time?: "0" | "1" | "2";
                        /** @description length of the period, a positive whole number (needed with mode 1 or 2) */
                        set_exp_time?: string;
                        /**
                         * @description unit of the period: m minutes, h hours, D days, M months, Y years (case-sensitive)
                         * @enum {string}
                         */
                        set_exp_time_type?: "m" | "h" | "D" | "M" | "Y";
                        /**
                         * @description time expiration: 0 none, 1 suspend, 2 delete when the period ends (other spelling)
                         * @enum {string}
                         */
                        set_isexptime?: "0" | "1" | "2";
                        /** @description length of the period, a positive whole number (needed with mode 1 or 2) (other spelling) */
                        set_exptime?: string;
                        /**
                         * @description unit of the period: m minutes, h hours, D days, M months, Y years (case-sensitive) (other spelling)
                         * @enum {string}
                         */
                        set_exptimet?: "m" | "h" | "D" | "M" | "Y";
                        /**
                         * @description the member’s IPv4 or IPv6 address at registration; a forwarded list (`203.0.113.5, 10.0.0.1`) gives its first valid address
                         * @example 203.0.113.5
                         */
                        IP?: string;
                        /**
                         * @description 1 mails the member the account’s welcome mail, with its verify_url (when the account has a mail server: account set --smtp-url)
                         * @enum {string}
                         */
                        send_welcome?: "0" | "1";
                        /** @description the same as _login, when _login is not sent (as code written for the hosted original sends it) */
                        login?: string;
                        /** @description the same as _email, when _email is not sent (as code written for the hosted original sends it) */
                        email?: string;
                        /** @description the same as _password, when _password is not sent (as code written for the hosted original sends it) */
                        password?: string;
                    } & {
                        [key: string]: string;
                    };
                };
            };
            responses: {
                /** @description OK, or ERROR (bad parameters, wrong api key, login already taken) */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "OK";
                            /** @enum {string} */
                            message: "";
                            /** @description the member id */
                            id: string;
                            login: string;
                            /** @description the password, as sent or as generated */
                            password: string;
                            /**
                             * Format: uri
                             * @description opening it (GET) marks the e-mail address verified
                             */
                            verify_url: string;
                            /**
                             * @description present when a mail was asked for (send_welcome=1, send_mail=1) and none is sent: the account has no mail settings (account set --smtp-url), or the member has no e-mail address
                             * @enum {string}
                             */
                            mail?: "not sent: no mail settings" | "not sent: no address";
                        } | {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description unknown path */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description method not allowed on this path (with Allow) */
                405: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description the request took too long to arrive */
                408: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description body, a parameter or the parameter count too large */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description unsupported content type */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description rate limited (wrong API keys from this address, or the account’s request rate); with Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description internal error (never with internals) */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description store unavailable, or password hashing at capacity; with Retry-After */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api2/update/": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Change members
         * @description Exactly one find_member_* selector. All matched members change in one transaction, or none does. Any parameter that is not listed sets a profile field. GET takes the same parameters in the query string (a key or a password in a URL can reach logs on the way: prefer POST).
         */
        get: {
            parameters: {
                query: {
                    /** @description the account name */
                    user: string;
                    /** @description the account’s API key */
                    api_key: string;
                    /** @description selects the member with this login (any state), case-insensitively */
                    find_member_login?: string;
                    /** @description selects every member with this e-mail address (any state), case-insensitively */
                    find_member_email?: string;
                    /** @description selects the paid members whose billing id or subscription id is this */
                    find_member_ptrans?: string;
                    /** @description selects the member with this id (any state), or * for every member that is not Deleted */
                    find_member_id?: string;
                    /** @description new login (only when one member matches) */
                    login?: string;
                    /** @description new e-mail address: one plain address, as _email on /create/ (a new address is not verified) */
                    email?: string;
                    /** @description new password */
                    password?: string;
                    /** @description URL after a successful login; empty clears it */
                    urlok?: string;
                    /** @description URL after a failed login; empty clears it */
                    urlfail?: string;
                    /** @description A active, S suspended, D deleted (A restores a Deleted member) */
                    status?: "A" | "S" | "D";
                    /** @description time expiration: N none, S suspend, D delete when the period ends; the period starts now */
                    is_exp_time?: "N" | "S" | "D";
                    /** @description length of the period (needed with S or D) */
                    exp_time?: string;
                    /** @description unit: m minutes, h hours, D days, M months, Y years */
                    exp_time_type?: "m" | "h" | "D" | "M" | "Y";
                    /** @description login-count expiration: N none, S suspend, D delete when used up; counts from now */
                    is_exp_logins?: "N" | "S" | "D";
                    /** @description successful logins allowed (needed with S or D) */
                    exp_logins?: string;
                    /** @description comma-separated profile field names to remove */
                    pfdelete?: string;
                    /** @description 1 ends every session of the matched members (a new password, S and D end them anyway) */
                    revoke_sessions?: "0" | "1";
                    /** @description 1 changes nothing and answers would_update: how many members the selector matches now (the parameters are checked as for the update) */
                    dry_run?: "0" | "1";
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK, or ERROR (bad parameters, wrong api key, member not found, login already taken, nothing to change) */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "OK";
                            /** @enum {string} */
                            message: "";
                            /** @description how many members changed */
                            updated: number;
                        } | {
                            /** @enum {string} */
                            result: "OK";
                            /** @enum {string} */
                            message: "";
                            /** @description how many members the update would change */
                            would_update: number;
                        } | {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description unknown path */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description method not allowed on this path (with Allow) */
                405: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description the request took too long to arrive */
                408: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description body, a parameter or the parameter count too large */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description unsupported content type */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description rate limited (wrong API keys from this address, or the account’s request rate); with Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description internal error (never with internals) */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description store unavailable, or password hashing at capacity; with Retry-After */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
            };
        };
        put?: never;
        /**
         * Change members
         * @description Exactly one find_member_* selector. All matched members change in one transaction, or none does. Any parameter that is not listed sets a profile field.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            /** @description a selector and what to change */
            requestBody: {
                content: {
                    "application/x-www-form-urlencoded": {
                        /**
                         * @description the account name
                         * @example demo
                         */
                        user: string;
                        /** @description the account’s API key */
                        api_key: string;
                        /** @description selects the member with this login (any state), case-insensitively */
                        find_member_login?: string;
                        /** @description selects every member with this e-mail address (any state), case-insensitively */
                        find_member_email?: string;
                        /** @description selects the paid members whose billing id or subscription id is this */
                        find_member_ptrans?: string;
                        /** @description selects the member with this id (any state), or * for every member that is not Deleted */
                        find_member_id?: string;
                        /** @description new login (only when one member matches) */
                        login?: string;
                        /**
                         * Format: email
                         * @description new e-mail address: one plain address, as _email on /create/ (a new address is not verified)
                         */
                        email?: string;
                        /** @description new password */
                        password?: string;
                        /** @description URL after a successful login; empty clears it */
                        urlok?: string;
                        /** @description URL after a failed login; empty clears it */
                        urlfail?: string;
                        /**
                         * @description A active, S suspended, D deleted (A restores a Deleted member)
                         * @enum {string}
                         */
                        status?: "A" | "S" | "D";
                        /**
                         * @description time expiration: N none, S suspend, D delete when the period ends; the period starts now
                         * @enum {string}
                         */
                        is_exp_time?: "N" | "S" | "D";
                        /** @description length of the period (needed with S or D) */
                        exp_time?: string;
                        /**
                         * @description unit: m minutes, h hours, D days, M months, Y years
                         * @enum {string}
                         */
                        exp_time_type?: "m" | "h" | "D" | "M" | "Y";
                        /**
                         * @description login-count expiration: N none, S suspend, D delete when used up; counts from now
                         * @enum {string}
                         */
                        is_exp_logins?: "N" | "S" | "D";
                        /** @description successful logins allowed (needed with S or D) */
                        exp_logins?: string;
                        /** @description comma-separated profile field names to remove */
                        pfdelete?: string;
                        /**
                         * @description 1 ends every session of the matched members (a new password, S and D end them anyway)
                         * @enum {string}
                         */
                        revoke_sessions?: "0" | "1";
                        /**
                         * @description 1 changes nothing and answers would_update: how many members the selector matches now (the parameters are checked as for the update)
                         * @enum {string}
                         */
                        dry_run?: "0" | "1";
                    } & {
                        [key: string]: string;
                    };
                    "multipart/form-data": {
                        /**
                         * @description the account name
                         * @example demo
                         */
                        user: string;
                        /** @description the account’s API key */
                        api_key: string;
                        /** @description selects the member with this login (any state), case-insensitively */
                        find_member_login?: string;
                        /** @description selects every member with this e-mail address (any state), case-insensitively */
                        find_member_email?: string;
                        /** @description selects the paid members whose billing id or subscription id is this */
                        find_member_ptrans?: string;
                        /** @description selects the member with this id (any state), or * for every member that is not Deleted */
                        find_member_id?: string;
                        /** @description new login (only when one member matches) */
                        login?: string;
                        /**
                         * Format: email
                         * @description new e-mail address: one plain address, as _email on /create/ (a new address is not verified)
                         */
                        email?: string;
                        /** @description new password */
                        password?: string;
                        /** @description URL after a successful login; empty clears it */
                        urlok?: string;
                        /** @description URL after a failed login; empty clears it */
                        urlfail?: string;
                        /**
                         * @description A active, S suspended, D deleted (A restores a Deleted member)
                         * @enum {string}
                         */
                        status?: "A" | "S" | "D";
                        /**
                         * @description time expiration: N none, S suspend, D delete when the period ends; the period starts now
                         * @enum {string}
                         */
                        is_exp_time?: "N" | "S" | "D";
                        /** @description length of the period (needed with S or D) */
                        exp_time?: string;
                        /**
                         * @description unit: m minutes, h hours, D days, M months, Y years
                         * @enum {string}
                         */
                        exp_time_type?: "m" | "h" | "D" | "M" | "Y";
                        /**
                         * @description login-count expiration: N none, S suspend, D delete when used up; counts from now
                         * @enum {string}
                         */
                        is_exp_logins?: "N" | "S" | "D";
                        /** @description successful logins allowed (needed with S or D) */
                        exp_logins?: string;
                        /** @description comma-separated profile field names to remove */
                        pfdelete?: string;
                        /**
                         * @description 1 ends every session of the matched members (a new password, S and D end them anyway)
                         * @enum {string}
                         */
                        revoke_sessions?: "0" | "1";
                        /**
                         * @description 1 changes nothing and answers would_update: how many members the selector matches now (the parameters are checked as for the update)
                         * @enum {string}
                         */
                        dry_run?: "0" | "1";
                    } & {
                        [key: string]: string;
                    };
                    "application/json": {
                        /**
                         * @description the account name
                         * @example demo
                         */
                        user: string;
                        /** @description the account’s API key */
                        api_key: string;
                        /** @description selects the member with this login (any state), case-insensitively */
                        find_member_login?: string;
                        /** @description selects every member with this e-mail address (any state), case-insensitively */
                        find_member_email?: string;
                        /** @description selects the paid members whose billing id or subscription id is this */
                        find_member_ptrans?: string;
                        /** @description selects the member with this id (any state), or * for every member that is not Deleted */
                        find_member_id?: string;
                        /** @description new login (only when one member matches) */
                        login?: string;
                        /**
                         * Format: email
                         * @description new e-mail address: one plain address, as _email on /create/ (a new address is not verified)
                         */
                        email?: string;
                        /** @description new password */
                        password?: string;
                        /** @description URL after a successful login; empty clears it */
                        urlok?: string;
                        /** @description URL after a failed login; empty clears it */
                        urlfail?: string;
                        /**
                         * @description A active, S suspended, D deleted (A restores a Deleted member)
                         * @enum {string}
                         */
                        status?: "A" | "S" | "D";
                        /**
                         * @description time expiration: N none, S suspend, D delete when the period ends; the period starts now
                         * @enum {string}
                         */
                        is_exp_time?: "N" | "S" | "D";
                        /** @description length of the period (needed with S or D) */
                        exp_time?: string;
                        /**
                         * @description unit: m minutes, h hours, D days, M months, Y years
                         * @enum {string}
                         */
                        exp_time_type?: "m" | "h" | "D" | "M" | "Y";
                        /**
                         * @description login-count expiration: N none, S suspend, D delete when used up; counts from now
                         * @enum {string}
                         */
                        is_exp_logins?: "N" | "S" | "D";
                        /** @description successful logins allowed (needed with S or D) */
                        exp_logins?: string;
                        /** @description comma-separated profile field names to remove */
                        pfdelete?: string;
                        /**
                         * @description 1 ends every session of the matched members (a new password, S and D end them anyway)
                         * @enum {string}
                         */
                        revoke_sessions?: "0" | "1";
                        /**
                         * @description 1 changes nothing and answers would_update: how many members the selector matches now (the parameters are checked as for the update)
                         * @enum {string}
                         */
                        dry_run?: "0" | "1";
                    } & {
                        [key: string]: string;
                    };
                };
            };
            responses: {
                /** @description OK, or ERROR (bad parameters, wrong api key, member not found, login already taken, nothing to change) */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "OK";
                            /** @enum {string} */
                            message: "";
                            /** @description how many members changed */
                            updated: number;
                        } | {
                            /** @enum {string} */
                            result: "OK";
                            /** @enum {string} */
                            message: "";
                            /** @description how many members the update would change */
                            would_update: number;
                        } | {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description unknown path */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description method not allowed on this path (with Allow) */
                405: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description the request took too long to arrive */
                408: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description body, a parameter or the parameter count too large */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description unsupported content type */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description rate limited (wrong API keys from this address, or the account’s request rate); with Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description internal error (never with internals) */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description store unavailable, or password hashing at capacity; with Retry-After */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api2/list/": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List members
         * @description Members in id order, streamed. Filters combine with AND; profile:<field>=text filters on one profile field. Parameters may come in the query string or (POST) the body. GET takes the same parameters in the query string (a key or a password in a URL can reach logs on the way: prefer POST).
         */
        get: {
            parameters: {
                query: {
                    /** @description the account name */
                    user: string;
                    /** @description the account’s API key */
                    api_key: string;
                    /** @description the fields of each member as a run of {name} tokens: built-in fields and profile fields; default {id}{login}{email}{status} */
                    record?: string;
                    /** @description login contains this text (case-insensitive) */
                    login?: string;
                    /** @description login is this (case-insensitive) */
                    login_full?: string;
                    /** @description e-mail address contains this text (case-insensitive) */
                    email?: string;
                    /** @description e-mail address is this (case-insensitive) */
                    email_full?: string;
                    /** @description A, S or D; without it (and without limitd) Deleted members are left out */
                    status?: "A" | "S" | "D";
                    /** @description F free, P paid, A API, M manual */
                    reg_type?: "F" | "P" | "A" | "M";
                    /** @description some profile field contains this text (case-insensitive) */
                    profile?: string;
                    /** @description registered on a later day than this (YYYY-MM-DD, in the account’s time zone) */
                    register_after?: string;
                    /** @description registered on an earlier day than this (YYYY-MM-DD) */
                    register_before?: string;
                    /** @description NNN: at most NNN members; NNNs: registered in the last NNN seconds; may be sent twice to combine both */
                    limit?: string;
                    /** @description NNNs: members deleted in the last NNN seconds */
                    limitd?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description the list, or ERROR (bad filter, wrong api key) */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            members: {
                                [key: string]: string;
                            }[];
                            members_total: number;
                        } | {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description unknown path */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description method not allowed on this path (with Allow) */
                405: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description the request took too long to arrive */
                408: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description body, a parameter or the parameter count too large */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description unsupported content type */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description rate limited (wrong API keys from this address, or the account’s request rate); with Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description internal error (never with internals) */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description store unavailable, or password hashing at capacity; with Retry-After */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
            };
        };
        put?: never;
        /**
         * List members
         * @description Members in id order, streamed. Filters combine with AND; profile:<field>=text filters on one profile field. Parameters may come in the query string or (POST) the body.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            /** @description filters and the record */
            requestBody: {
                content: {
                    "application/x-www-form-urlencoded": {
                        /**
                         * @description the account name
                         * @example demo
                         */
                        user: string;
                        /** @description the account’s API key */
                        api_key: string;
                        /**
                         * @description the fields of each member as a run of {name} tokens: built-in fields and profile fields; default {id}{login}{email}{status}
                         * @example {id}{login}{email}{reg_date}{city}
                         */
                        record?: string;
                        /** @description login contains this text (case-insensitive) */
                        login?: string;
                        /** @description login is this (case-insensitive) */
                        login_full?: string;
                        /** @description e-mail address contains this text (case-insensitive) */
                        email?: string;
                        /** @description e-mail address is this (case-insensitive) */
                        email_full?: string;
                        /**
                         * @description A, S or D; without it (and without limitd) Deleted members are left out
                         * @enum {string}
                         */
                        status?: "A" | "S" | "D";
                        /**
                         * @description F free, P paid, A API, M manual
                         * @enum {string}
                         */
                        reg_type?: "F" | "P" | "A" | "M";
                        /** @description some profile field contains this text (case-insensitive) */
                        profile?: string;
                        /**
                         * Format: date
                         * @description registered on a later day than this (YYYY-MM-DD, in the account’s time zone)
                         */
                        register_after?: string;
                        /**
                         * Format: date
                         * @description registered on an earlier day than this (YYYY-MM-DD)
                         */
                        register_before?: string;
                        /** @description NNN: at most NNN members; NNNs: registered in the last NNN seconds; may be sent twice to combine both */
                        limit?: string;
                        /** @description NNNs: members deleted in the last NNN seconds */
                        limitd?: string;
                    };
                    "multipart/form-data": {
                        /**
                         * @description the account name
                         * @example demo
                         */
                        user: string;
                        /** @description the account’s API key */
                        api_key: string;
                        /**
                         * @description the fields of each member as a run of {name} tokens: built-in fields and profile fields; default {id}{login}{email}{status}
                         * @example {id}{login}{email}{reg_date}{city}
                         */
                        record?: string;
                        /** @description login contains this text (case-insensitive) */
                        login?: string;
                        /** @description login is this (case-insensitive) */
                        login_full?: string;
                        /** @description e-mail address contains this text (case-insensitive) */
                        email?: string;
                        /** @description e-mail address is this (case-insensitive) */
                        email_full?: string;
                        /**
                         * @description A, S or D; without it (and without limitd) Deleted members are left out
                         * @enum {string}
                         */
                        status?: "A" | "S" | "D";
                        /**
                         * @description F free, P paid, A API, M manual
                         * @enum {string}
                         */
                        reg_type?: "F" | "P" | "A" | "M";
                        /** @description some profile field contains this text (case-insensitive) */
                        profile?: string;
                        /**
                         * Format: date
                         * @description registered on a later day than this (YYYY-MM-DD, in the account’s time zone)
                         */
                        register_after?: string;
                        /**
                         * Format: date
                         * @description registered on an earlier day than this (YYYY-MM-DD)
                         */
                        register_before?: string;
                        /** @description NNN: at most NNN members; NNNs: registered in the last NNN seconds; may be sent twice to combine both */
                        limit?: string;
                        /** @description NNNs: members deleted in the last NNN seconds */
                        limitd?: string;
                    };
                    "application/json": {
                        /**
                         * @description the account name
                         * @example demo
                         */
                        user: string;
                        /** @description the account’s API key */
                        api_key: string;
                        /**
                         * @description the fields of each member as a run of {name} tokens: built-in fields and profile fields; default {id}{login}{email}{status}
                         * @example {id}{login}{email}{reg_date}{city}
                         */
                        record?: string;
                        /** @description login contains this text (case-insensitive) */
                        login?: string;
                        /** @description login is this (case-insensitive) */
                        login_full?: string;
                        /** @description e-mail address contains this text (case-insensitive) */
                        email?: string;
                        /** @description e-mail address is this (case-insensitive) */
                        email_full?: string;
                        /**
                         * @description A, S or D; without it (and without limitd) Deleted members are left out
                         * @enum {string}
                         */
                        status?: "A" | "S" | "D";
                        /**
                         * @description F free, P paid, A API, M manual
                         * @enum {string}
                         */
                        reg_type?: "F" | "P" | "A" | "M";
                        /** @description some profile field contains this text (case-insensitive) */
                        profile?: string;
                        /**
                         * Format: date
                         * @description registered on a later day than this (YYYY-MM-DD, in the account’s time zone)
                         */
                        register_after?: string;
                        /**
                         * Format: date
                         * @description registered on an earlier day than this (YYYY-MM-DD)
                         */
                        register_before?: string;
                        /** @description NNN: at most NNN members; NNNs: registered in the last NNN seconds; may be sent twice to combine both */
                        limit?: string;
                        /** @description NNNs: members deleted in the last NNN seconds */
                        limitd?: string;
                    };
                };
            };
            responses: {
                /** @description the list, or ERROR (bad filter, wrong api key) */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            members: {
                                [key: string]: string;
                            }[];
                            members_total: number;
                        } | {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description unknown path */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description method not allowed on this path (with Allow) */
                405: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description the request took too long to arrive */
                408: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description body, a parameter or the parameter count too large */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description unsupported content type */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description rate limited (wrong API keys from this address, or the account’s request rate); with Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description internal error (never with internals) */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description store unavailable, or password hashing at capacity; with Retry-After */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api2/events/": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read the change feed
         * @description The change feed: every change to the account’s members, in id order. Keep `next` and send it as `after`: every event comes once, in order, even with several servers writing.
         */
        get: {
            parameters: {
                query: {
                    /** @description the account name */
                    user: string;
                    /** @description the account’s API key */
                    api_key: string;
                    /** @description events after this id (the `next` of the previous answer); omitted: from the oldest event kept */
                    after?: string;
                    /** @description at most this many events, 1 to 1000 (default 100) */
                    limit?: string;
                    /** @description only these types, comma-separated: member.created, member.updated, member.status_changed, member.deleted, member.bulk_updated, member.purged, member.verified, member.locked, member.unlocked, member.login, member.expiring, member.registered, member.paid, member.payment_failed, member.refunded, member.disputed, member.plan_changed */
                    types?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description the events, or ERROR (bad parameter, wrong api key) */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "OK";
                            /** @enum {string} */
                            message: "";
                            events: {
                                id: string;
                                /** @enum {string} */
                                type: "member.created" | "member.updated" | "member.status_changed" | "member.deleted" | "member.bulk_updated" | "member.purged" | "member.verified" | "member.locked" | "member.unlocked" | "member.login" | "member.expiring" | "member.registered" | "member.paid" | "member.payment_failed" | "member.refunded" | "member.disputed" | "member.plan_changed";
                                /** Format: date-time */
                                time: string;
                                account: string;
                                member?: {
                                    id: string;
                                    login: string;
                                };
                                actor: {
                                    /** @enum {string} */
                                    kind: "api" | "import" | "operator" | "system" | "member";
                                    email?: string;
                                    name?: string;
                                };
                                request_id?: string;
                                /** @description by type: member.created: the built-in fields set, by their import/export column names (instants ISO 8601 UTC; never the password), and profile {name: value}; member.updated: changed [names; `password` when it changed], old {name: value}, new {name: value}, profile {name: {old, new}} (null for none); member.status_changed: from, to (A, S, D), cause (update, restore, login_expiry); member.deleted: cause (update, login_expiry); member.bulk_updated: either selector "*", count, set {column: value}, profile {set, deleted} (an update of every member), or cause "time_expiry", status, count (expirations written down); member.purged: cause "retention"; member.verified: email; member.locked: until, scope (address, all), failures; member.unlocked: {}; member.login: outcome (ok, fail, locked, suspended), ip when sent, login when it named no member; member.expiring: expires_at, action (S, D), seconds_left. */
                                data: {
                                    [key: string]: unknown;
                                };
                            }[];
                            next: string;
                        } | {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description unknown path */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description method not allowed on this path (with Allow) */
                405: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description the request took too long to arrive */
                408: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description body, a parameter or the parameter count too large */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description unsupported content type */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description rate limited (wrong API keys from this address, or the account’s request rate); with Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description internal error (never with internals) */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description store unavailable, or password hashing at capacity; with Retry-After */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
            };
        };
        put?: never;
        /**
         * Read the change feed
         * @description The change feed: every change to the account’s members, in id order. Keep `next` and send it as `after`: every event comes once, in order, even with several servers writing.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            /** @description where to start, how many, which types */
            requestBody: {
                content: {
                    "application/x-www-form-urlencoded": {
                        /**
                         * @description the account name
                         * @example demo
                         */
                        user: string;
                        /** @description the account’s API key */
                        api_key: string;
                        /** @description events after this id (the `next` of the previous answer); omitted: from the oldest event kept */
                        after?: string;
                        /** @description at most this many events, 1 to 1000 (default 100) */
                        limit?: string;
                        /** @description only these types, comma-separated: member.created, member.updated, member.status_changed, member.deleted, member.bulk_updated, member.purged, member.verified, member.locked, member.unlocked, member.login, member.expiring, member.registered, member.paid, member.payment_failed, member.refunded, member.disputed, member.plan_changed */
                        types?: string;
                    };
                    "multipart/form-data": {
                        /**
                         * @description the account name
                         * @example demo
                         */
                        user: string;
                        /** @description the account’s API key */
                        api_key: string;
                        /** @description events after this id (the `next` of the previous answer); omitted: from the oldest event kept */
                        after?: string;
                        /** @description at most this many events, 1 to 1000 (default 100) */
                        limit?: string;
                        /** @description only these types, comma-separated: member.created, member.updated, member.status_changed, member.deleted, member.bulk_updated, member.purged, member.verified, member.locked, member.unlocked, member.login, member.expiring, member.registered, member.paid, member.payment_failed, member.refunded, member.disputed, member.plan_changed */
                        types?: string;
                    };
                    "application/json": {
                        /**
                         * @description the account name
                         * @example demo
                         */
                        user: string;
                        /** @description the account’s API key */
                        api_key: string;
                        /** @description events after this id (the `next` of the previous answer); omitted: from the oldest event kept */
                        after?: string;
                        /** @description at most this many events, 1 to 1000 (default 100) */
                        limit?: string;
                        /** @description only these types, comma-separated: member.created, member.updated, member.status_changed, member.deleted, member.bulk_updated, member.purged, member.verified, member.locked, member.unlocked, member.login, member.expiring, member.registered, member.paid, member.payment_failed, member.refunded, member.disputed, member.plan_changed */
                        types?: string;
                    };
                };
            };
            responses: {
                /** @description the events, or ERROR (bad parameter, wrong api key) */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "OK";
                            /** @enum {string} */
                            message: "";
                            events: {
                                id: string;
                                /** @enum {string} */
                                type: "member.created" | "member.updated" | "member.status_changed" | "member.deleted" | "member.bulk_updated" | "member.purged" | "member.verified" | "member.locked" | "member.unlocked" | "member.login" | "member.expiring" | "member.registered" | "member.paid" | "member.payment_failed" | "member.refunded" | "member.disputed" | "member.plan_changed";
                                /** Format: date-time */
                                time: string;
                                account: string;
                                member?: {
                                    id: string;
                                    login: string;
                                };
                                actor: {
                                    /** @enum {string} */
                                    kind: "api" | "import" | "operator" | "system" | "member";
                                    email?: string;
                                    name?: string;
                                };
                                request_id?: string;
                                /** @description by type: member.created: the built-in fields set, by their import/export column names (instants ISO 8601 UTC; never the password), and profile {name: value}; member.updated: changed [names; `password` when it changed], old {name: value}, new {name: value}, profile {name: {old, new}} (null for none); member.status_changed: from, to (A, S, D), cause (update, restore, login_expiry); member.deleted: cause (update, login_expiry); member.bulk_updated: either selector "*", count, set {column: value}, profile {set, deleted} (an update of every member), or cause "time_expiry", status, count (expirations written down); member.purged: cause "retention"; member.verified: email; member.locked: until, scope (address, all), failures; member.unlocked: {}; member.login: outcome (ok, fail, locked, suspended), ip when sent, login when it named no member; member.expiring: expires_at, action (S, D), seconds_left. */
                                data: {
                                    [key: string]: unknown;
                                };
                            }[];
                            next: string;
                        } | {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description unknown path */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description method not allowed on this path (with Allow) */
                405: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description the request took too long to arrive */
                408: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description body, a parameter or the parameter count too large */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description unsupported content type */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description rate limited (wrong API keys from this address, or the account’s request rate); with Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description internal error (never with internals) */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description store unavailable, or password hashing at capacity; with Retry-After */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api2/session/": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Check a member’s session
         * @description OK while the session /login/ handed out is valid, with its member (and the fields of `record`, rendered as /list/ renders them); a valid check moves the idle deadline. FAIL "session not found" otherwise.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            /** @description the session to check */
            requestBody: {
                content: {
                    "application/x-www-form-urlencoded": {
                        /**
                         * @description the account name
                         * @example demo
                         */
                        user: string;
                        /** @description the session id /login/ answered */
                        session: string;
                        /**
                         * @description more fields of the member, as a /list/ record: a run of {name} tokens. Without api_key, only the fields the account lets a session read (account set NAME --session-fields; by default the dates and reg_type, no profile field)
                         * @example {reg_date}{reg_type}
                         */
                        record?: string;
                        /** @description a key of the account that may read (scope all or read): the record may then name any field */
                        api_key?: string;
                    };
                    "multipart/form-data": {
                        /**
                         * @description the account name
                         * @example demo
                         */
                        user: string;
                        /** @description the session id /login/ answered */
                        session: string;
                        /**
                         * @description more fields of the member, as a /list/ record: a run of {name} tokens. Without api_key, only the fields the account lets a session read (account set NAME --session-fields; by default the dates and reg_type, no profile field)
                         * @example {reg_date}{reg_type}
                         */
                        record?: string;
                        /** @description a key of the account that may read (scope all or read): the record may then name any field */
                        api_key?: string;
                    };
                    "application/json": {
                        /**
                         * @description the account name
                         * @example demo
                         */
                        user: string;
                        /** @description the session id /login/ answered */
                        session: string;
                        /**
                         * @description more fields of the member, as a /list/ record: a run of {name} tokens. Without api_key, only the fields the account lets a session read (account set NAME --session-fields; by default the dates and reg_type, no profile field)
                         * @example {reg_date}{reg_type}
                         */
                        record?: string;
                        /** @description a key of the account that may read (scope all or read): the record may then name any field */
                        api_key?: string;
                    };
                };
            };
            responses: {
                /** @description OK, FAIL, or ERROR (bad parameters) */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": ({
                            /** @enum {string} */
                            result: "OK";
                            /** @enum {string} */
                            message: "";
                            /** @description the member id */
                            id: string;
                            login: string;
                            email: string;
                            /** @enum {string} */
                            status: "Active";
                            /** @description when the session ends unless checked again (idle), or for good (lifetime): YYYY-MM-DD hh:mm:ss in the account’s time zone */
                            expires: string;
                        } & {
                            [key: string]: string;
                        }) | {
                            /** @enum {string} */
                            result: "FAIL";
                            /** @enum {string} */
                            message: "session not found";
                        } | {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description unknown path */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description method not allowed on this path (with Allow) */
                405: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description the request took too long to arrive */
                408: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description body, a parameter or the parameter count too large */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description unsupported content type */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description rate limited (wrong API keys from this address, or the account’s request rate); with Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description internal error (never with internals) */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description store unavailable, or password hashing at capacity; with Retry-After */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api2/logout/": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * End a member’s session
         * @description Ends the session, if it is valid; the answer is OK either way.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            /** @description the session to end */
            requestBody: {
                content: {
                    "application/x-www-form-urlencoded": {
                        /**
                         * @description the account name
                         * @example demo
                         */
                        user: string;
                        /** @description the session id /login/ answered */
                        session: string;
                    };
                    "multipart/form-data": {
                        /**
                         * @description the account name
                         * @example demo
                         */
                        user: string;
                        /** @description the session id /login/ answered */
                        session: string;
                    };
                    "application/json": {
                        /**
                         * @description the account name
                         * @example demo
                         */
                        user: string;
                        /** @description the session id /login/ answered */
                        session: string;
                    };
                };
            };
            responses: {
                /** @description OK, or ERROR (bad parameters) */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "OK";
                            /** @enum {string} */
                            message: "";
                        } | {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description unknown path */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description method not allowed on this path (with Allow) */
                405: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description the request took too long to arrive */
                408: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description body, a parameter or the parameter count too large */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description unsupported content type */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description rate limited (wrong API keys from this address, or the account’s request rate); with Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description internal error (never with internals) */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description store unavailable, or password hashing at capacity; with Retry-After */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api2/reset/": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Make a password reset link for a member
         * @description Exactly one find_member_* selector, finding one member (not Deleted). The link works once, for the account’s reset lifetime (an hour by default); it opens a page where the member chooses a new password. With send_mail=1 and an account that has a mail server, the reset mail is sent to the member too.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            /** @description a selector */
            requestBody: {
                content: {
                    "application/x-www-form-urlencoded": {
                        /**
                         * @description the account name
                         * @example demo
                         */
                        user: string;
                        /** @description the account’s API key */
                        api_key: string;
                        /** @description selects the member with this login (any state), case-insensitively */
                        find_member_login?: string;
                        /** @description selects every member with this e-mail address (any state), case-insensitively */
                        find_member_email?: string;
                        /** @description selects the paid members whose billing id or subscription id is this */
                        find_member_ptrans?: string;
                        /** @description selects the member with this id (any state), or * for every member that is not Deleted */
                        find_member_id?: string;
                        /**
                         * @description 1 mails the link to the member (when the account has a mail server: account set --smtp-url)
                         * @enum {string}
                         */
                        send_mail?: "0" | "1";
                    };
                    "multipart/form-data": {
                        /**
                         * @description the account name
                         * @example demo
                         */
                        user: string;
                        /** @description the account’s API key */
                        api_key: string;
                        /** @description selects the member with this login (any state), case-insensitively */
                        find_member_login?: string;
                        /** @description selects every member with this e-mail address (any state), case-insensitively */
                        find_member_email?: string;
                        /** @description selects the paid members whose billing id or subscription id is this */
                        find_member_ptrans?: string;
                        /** @description selects the member with this id (any state), or * for every member that is not Deleted */
                        find_member_id?: string;
                        /**
                         * @description 1 mails the link to the member (when the account has a mail server: account set --smtp-url)
                         * @enum {string}
                         */
                        send_mail?: "0" | "1";
                    };
                    "application/json": {
                        /**
                         * @description the account name
                         * @example demo
                         */
                        user: string;
                        /** @description the account’s API key */
                        api_key: string;
                        /** @description selects the member with this login (any state), case-insensitively */
                        find_member_login?: string;
                        /** @description selects every member with this e-mail address (any state), case-insensitively */
                        find_member_email?: string;
                        /** @description selects the paid members whose billing id or subscription id is this */
                        find_member_ptrans?: string;
                        /** @description selects the member with this id (any state), or * for every member that is not Deleted */
                        find_member_id?: string;
                        /**
                         * @description 1 mails the link to the member (when the account has a mail server: account set --smtp-url)
                         * @enum {string}
                         */
                        send_mail?: "0" | "1";
                    };
                };
            };
            responses: {
                /** @description OK, or ERROR (bad parameters, wrong api key, member not found, several members found) */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "OK";
                            /** @enum {string} */
                            message: "";
                            /** @description the single-use link to the page that sets a new password */
                            reset_url: string;
                            /**
                             * @description present when a mail was asked for (send_welcome=1, send_mail=1) and none is sent: the account has no mail settings (account set --smtp-url), or the member has no e-mail address
                             * @enum {string}
                             */
                            mail?: "not sent: no mail settings" | "not sent: no address";
                        } | {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description unknown path */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description method not allowed on this path (with Allow) */
                405: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description the request took too long to arrive */
                408: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description body, a parameter or the parameter count too large */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description unsupported content type */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description rate limited (wrong API keys from this address, or the account’s request rate); with Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description internal error (never with internals) */
                500: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
                /** @description store unavailable, or password hashing at capacity; with Retry-After */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api2/verify/": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Verify a member’s e-mail address
         * @description The verify_url that /create/ answers with, opened in a browser. Answers a small HTML page; every bad link gets the same 400 page.
         */
        get: {
            parameters: {
                query: {
                    /** @description the account name */
                    user: string;
                    /** @description the member’s login */
                    login: string;
                    /** @description the member id */
                    id: string;
                    /** @description a keyed MAC over the account, id and login */
                    code: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description E-mail address verified */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "text/html": string;
                    };
                };
                /** @description Link not valid */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "text/html": string;
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Liveness: the process serves requests */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description up */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "OK";
                            /** @enum {string} */
                            message: "";
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/readyz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Readiness: the process serves requests and its store answers within 100 ms */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description ready */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "OK";
                            /** @enum {string} */
                            message: "";
                        };
                    };
                };
                /** @description the store does not answer ("service unavailable"); with Retry-After */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            result: "ERROR";
                            /** @description short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "wrong api key" */
                            message: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: never;
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export type operations = Record<string, never>;
