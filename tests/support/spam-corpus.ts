// A small corpus of contact messages, genuine and spam, each with how it was sent, on which the spam
// score is measured (tests/unit/spam-corpus.test.ts, decision 044). Sites we made up end in .example.

/** How a message reached the score; every post the score sees passed the proof or its confirmation. */
export type Sender =
  /** A person with JavaScript who typed the message in the form. */
  | "typed"
  /** A person with JavaScript who pasted a message written elsewhere, seconds after focusing the form. */
  | "pasted"
  /** A person without JavaScript, through the confirmation page (no time known). */
  | "no_js"
  /** A script that solved the proof, copied a browser's headers and posted at the proof's minimum. */
  | "bot"
  /** A headless Chromium that solved the proof and posted at its minimum. */
  | "headless"
  /** A script that follows the confirmation page, without a browser's headers. */
  | "script"
  /** A script that solved the proof, copied a browser's headers and waited as long as a person types. */
  | "patient";

export type Sample = {
  what: string;
  sender: Sender;
  fields: { name: string; email: string; subject: string; message: string };
  /** Posted before within the hour by this many other clients: the same text, or reworded, same links. */
  campaign?: { clients: number; reworded: boolean };
};

export const GENUINE: Sample[] = [
  {
    what: "the issue's case: own site, GitHub and LinkedIn",
    sender: "typed",
    fields: {
      name: "Priya Raman",
      email: "priya@raman.example",
      subject: "Frontend contract work",
      message:
        "Hi! I'm a frontend developer and saw your portfolio. I'd love to collaborate on client work if you ever need a hand.\n\nSite: https://raman.example\nGitHub: https://github.com/priyaraman\nLinkedIn: https://www.linkedin.com/in/priya-raman\n\nBest, Priya",
    },
  },
  {
    what: "the same three links written with www.",
    sender: "typed",
    fields: {
      name: "Tom Becker",
      email: "tom.becker@gmail.com",
      subject: "Hello from a fellow Remix user",
      message:
        "Hey, found your site through the Remix discord. Really like how you did the contact form. My stuff is at www.tombecker.example, www.github.com/tbecker and www.linkedin.com/in/tom-becker-dev if you want to compare notes.",
    },
  },
  {
    what: "a designer's site, Dribbble and Behance",
    sender: "typed",
    fields: {
      name: "Lena Kovač",
      email: "lena@kovac-design.example",
      subject: "Design partner?",
      message:
        "Hello,\nI'm a UI designer looking for a developer to partner with on small business sites. Some of my work:\nhttps://kovac-design.example\nhttps://dribbble.com/lenakovac\nhttps://www.behance.net/lenakovac\nWould you be open to a call next week?",
    },
  },
  {
    what: "an open-source maintainer: an issue, a pull request and the repository",
    sender: "typed",
    fields: {
      name: "Marcus Lee",
      email: "marcus.lee@fastmail.com",
      subject: "Your fix for the date picker",
      message:
        "Hi, thanks for the fix you described in your blog post. I maintain the date picker library and we track it in https://github.com/mlee/datepick/issues/412 — there's a draft at https://github.com/mlee/datepick/pull/415. Would you review it? Repo: https://github.com/mlee/datepick",
    },
  },
  {
    what: "a conference organiser: event, call for papers, last year's programme",
    sender: "typed",
    fields: {
      name: "Ingrid Solberg",
      email: "ingrid@webconf.example",
      subject: "Speaking at WebConf Oslo",
      message:
        "Dear developer,\n\nWe enjoyed your article on forms without JavaScript and would like to invite you to submit a talk for WebConf Oslo in May.\n\nEvent: https://webconf.example\nCall for papers (closes 15 March): https://webconf.example/cfp\nLast year's programme: https://webconf.example/2025/schedule\n\nTravel and hotel are covered for speakers.\n\nKind regards,\nIngrid",
    },
  },
  {
    what: "a developer's GitLab, site and Mastodon",
    sender: "typed",
    fields: {
      name: "Jonas Weber",
      email: "jonas@weber.example",
      subject: "Question about your Varnish setup",
      message:
        "Hi, I read your notes on putting Varnish in front of Remix. Did you ever try it with streaming responses? I wrote up my attempt here: https://weber.example/notes/varnish\nCode: https://gitlab.com/jweber/remix-varnish\nI'm @jonas@hachyderm.io, https://hachyderm.io/@jonas",
    },
  },
  {
    what: "Spanish, with site, GitHub and LinkedIn",
    sender: "typed",
    fields: {
      name: "Lucía Fernández",
      email: "lucia.fernandez@outlook.es",
      subject: "Propuesta de colaboración",
      message:
        "Hola, soy desarrolladora full-stack en Valencia. Me encantó tu portafolio y me gustaría saber si aceptas proyectos en equipo.\n\nMi web: https://luciafernandez.example\nGitHub: https://github.com/luciafdz\nLinkedIn: https://www.linkedin.com/in/lucia-fernandez-dev\n\n¡Un saludo!",
    },
  },
  {
    what: "a recruiter with one job link",
    sender: "typed",
    fields: {
      name: "Sarah Mitchell",
      email: "sarah.mitchell@northwind.example",
      subject: "Senior React role at Northwind",
      message:
        "Hi there,\n\nI'm a technical recruiter at Northwind. We're hiring a senior React engineer (remote, EU time zones) and your portfolio stood out. The role: https://boards.greenhouse.io/northwind/jobs/4817\n\nWould you have 20 minutes this week?\n\nSarah",
    },
  },
  {
    what: "a recruiter's pasted template with company and job links",
    sender: "pasted",
    fields: {
      name: "Daniel Okafor",
      email: "d.okafor@talentbridge.example",
      subject: "Opportunity: Lead Frontend Engineer",
      message:
        "Hi,\n\nI hope you're well. I'm reaching out on behalf of a fast-growing fintech client who are looking for a Lead Frontend Engineer to join their platform team (fully remote, £95-110k).\n\nAbout the company: https://www.fintechco.example/about\nFull job description: https://jobs.lever.co/fintechco/8d2c1f\n\nIf this sounds interesting, reply here and we can arrange a quick call.\n\nBest regards,\nDaniel Okafor\nTalentBridge Recruitment",
    },
  },
  {
    what: "a recruiter linking their LinkedIn profile",
    sender: "typed",
    fields: {
      name: "Emma Johansson",
      email: "emma.johansson@gmail.com",
      subject: "Freelance gig?",
      message:
        "Hej! I'm hiring for a three-month freelance project, Remix + Postgres. You can check me out at https://www.linkedin.com/in/emmajohansson before replying :)",
    },
  },
  {
    what: "a client asking for a quote, no links",
    sender: "typed",
    fields: {
      name: "Robert Hughes",
      email: "rob@hughesbakery.example",
      subject: "Website for our bakery",
      message:
        "Hello, we run a small bakery in Leeds and need a simple website with our menu, opening hours and an order form. What would something like that cost, and how long would it take? Thanks, Rob",
    },
  },
  {
    what: "a client with their current site and one they like",
    sender: "typed",
    fields: {
      name: "Aisha Khan",
      email: "aisha@khanlaw.example",
      subject: "Redesign of our law firm's site",
      message:
        "Hi, our current site (https://khanlaw.example) is ten years old and doesn't work on phones. We like the clean style of https://www.otherfirm.example. Could you do something similar? Budget is flexible.",
    },
  },
  {
    what: "a client sending a booking link and a brief",
    sender: "typed",
    fields: {
      name: "Carlos Mendes",
      email: "carlos@mendes.example",
      subject: "Project brief",
      message:
        "Hi, as discussed by email, here's the brief: https://docs.google.com/document/d/1aBcD3fGhIjK/edit and you can book a slot with me at https://calendly.com/carlos-mendes/30min",
    },
  },
  {
    what: "a bug report with the page and a screenshot",
    sender: "typed",
    fields: {
      name: "Nina Petrova",
      email: "nina.p@yandex.ru",
      subject: "Broken link on your site",
      message:
        "Hi! The 'Projects' link on https://portfolio.example/about goes to a 404 for me (Firefox 132). Screenshot: https://i.imgur.com/Xk3p9Qa.png",
    },
  },
  {
    what: "a short thank-you",
    sender: "typed",
    fields: {
      name: "Ben",
      email: "ben@hey.com",
      subject: "Thanks",
      message: "Loved your talk at the meetup. Thanks!",
    },
  },
  {
    what: "a short note with one link",
    sender: "typed",
    fields: {
      name: "Kai",
      email: "kai@proton.me",
      subject: "Your article",
      message: "Shared your post here https://news.ycombinator.com/item?id=41234567 — hope that's ok.",
    },
  },
  {
    what: "German, one link",
    sender: "typed",
    fields: {
      name: "Stefan Hoffmann",
      email: "s.hoffmann@web.de",
      subject: "Anfrage zu einem Projekt",
      message:
        "Guten Tag,\nwir suchen Unterstützung bei der Umstellung unserer Vereinsseite auf Remix. Die aktuelle Seite finden Sie unter https://sv-musterstadt.example. Hätten Sie im Frühjahr Kapazität?\nMit freundlichen Grüßen\nStefan Hoffmann",
    },
  },
  {
    what: "Japanese, no links",
    sender: "typed",
    fields: {
      name: "佐藤 花子",
      email: "hanako.sato@example.jp",
      subject: "ポートフォリオについて",
      message:
        "はじめまして。佐藤と申します。ポートフォリオを拝見しました。弊社のウェブサイトのリニューアルについてご相談したいのですが、来週お時間をいただけますでしょうか。よろしくお願いいたします。",
    },
  },
  {
    what: "Russian, with a site and GitHub",
    sender: "typed",
    fields: {
      name: "Алексей Смирнов",
      email: "alexey.smirnov@mail.ru",
      subject: "Вопрос по вашему проекту",
      message:
        "Здравствуйте! Я тоже делаю сайты на Remix и хотел бы обменяться опытом. Мой сайт: https://smirnov.example, код: https://github.com/asmirnov. Буду рад ответу.",
    },
  },
  {
    what: "French, without JavaScript, no links",
    sender: "no_js",
    fields: {
      name: "Claire Dubois",
      email: "claire.dubois@orange.fr",
      subject: "Demande de devis",
      message:
        "Bonjour,\nJe souhaiterais un devis pour un site vitrine pour mon cabinet de kinésithérapie. Pouvez-vous me rappeler au 06 12 34 56 78 ?\nCordialement,\nClaire Dubois",
    },
  },
  {
    what: "without JavaScript, one link",
    sender: "no_js",
    fields: {
      name: "Hamid Farouk",
      email: "hamid@farouk.example",
      subject: "Collaboration",
      message:
        "Hello, I work on accessibility audits. My portfolio: https://farouk.example. Interested in teaming up?",
    },
  },
  {
    what: "without JavaScript, two links",
    sender: "no_js",
    fields: {
      name: "Olivia Brown",
      email: "olivia.brown@icloud.com",
      subject: "Podcast guest?",
      message:
        "Hi! I host a small podcast about indie web development (https://indiewebpod.example) and would love to have you on. Last episode: https://indiewebpod.example/episodes/42",
    },
  },
  {
    what: "a podcast invitation pasted, two links",
    sender: "pasted",
    fields: {
      name: "Mike Turner",
      email: "mike@devtalks.example",
      subject: "Invitation: DevTalks podcast",
      message:
        "Hi,\n\nI'm Mike, host of DevTalks (https://devtalks.example), a weekly podcast with ~5k listeners. I'd love to chat about your approach to progressive enhancement. Our guest guide is here: https://devtalks.example/guests\n\nCheers,\nMike",
    },
  },
  {
    what: "a student asking for advice",
    sender: "typed",
    fields: {
      name: "Fatima Zahra",
      email: "fatima.z@student.example.edu",
      subject: "Advice for a junior developer",
      message:
        "Hi, I'm in my final year of computer science and really admire your projects. Do you have any advice on what to learn to get a first frontend job? Thank you so much for your time.",
    },
  },
  {
    what: "a journalist, one link",
    sender: "typed",
    fields: {
      name: "Rachel Green",
      email: "rachel.green@techweekly.example",
      subject: "Interview request",
      message:
        "Hello, I'm writing a piece on small sites that avoid third-party trackers and would like to quote you. Here's my previous piece for context: https://techweekly.example/2026/10/no-trackers. Could we do a 15-minute call?",
    },
  },
  {
    what: "a former colleague, short",
    sender: "typed",
    fields: {
      name: "Greg",
      email: "greg.h@gmail.com",
      subject: "Long time!",
      message: "Hey, it's Greg from the old agency. Saw your site, looks great. Coffee sometime?",
    },
  },
  {
    what: "a domain in the subject, none in the message",
    sender: "typed",
    fields: {
      name: "Yusuf Demir",
      email: "yusuf@demir.example",
      subject: "About demir.example",
      message: "Hi, could you look at my site's loading time? It's very slow on mobile. Thanks!",
    },
  },
  {
    what: "a LinkedIn short link and GitHub",
    sender: "typed",
    fields: {
      name: "Grace Liu",
      email: "grace.liu@gmail.com",
      subject: "Connecting",
      message:
        "Hi! We met at JSConf. Here's my LinkedIn https://lnkd.in/gR4xT2b and GitHub https://github.com/graceliu — let's stay in touch.",
    },
  },
  {
    what: "four links: site, GitHub, LinkedIn and a talk",
    sender: "typed",
    fields: {
      name: "Oskar Nilsson",
      email: "oskar@nilsson.example",
      subject: "Remote pairing?",
      message:
        "Hi, I'm a Swedish developer working mostly on accessibility. If you're ever looking for someone to pair with:\n- https://nilsson.example\n- https://github.com/oskarn\n- https://www.linkedin.com/in/oskar-nilsson\n- my talk on focus management: https://www.youtube.com/watch?v=dQw4w9WgXcQ\nHave a nice day!",
    },
  },
  {
    what: "site, GitHub and LinkedIn in a message written elsewhere and pasted",
    sender: "pasted",
    fields: {
      name: "Anna Schmidt",
      email: "anna.schmidt@posteo.de",
      subject: "Application: frontend developer",
      message:
        "Dear Sir or Madam,\n\nI am writing to ask whether you take on junior developers for freelance projects. I have two years of experience with React and TypeScript.\n\nPortfolio: https://annaschmidt.example\nGitHub: https://github.com/annaschmidt\nLinkedIn: https://www.linkedin.com/in/anna-schmidt-fe\n\nI look forward to hearing from you.\n\nYours faithfully,\nAnna Schmidt",
    },
  },
];

const SEO_PITCH =
  "Hi, I was checking your website and noticed it is not ranking on the first page of Google for important keywords. We are an SEO agency with 10 years of experience and can get you to the top in 90 days. Can I send you a free audit and price list?";

export const SPAM: Sample[] = [
  {
    what: "an SEO pitch, one link",
    sender: "bot",
    fields: {
      name: "Jessica Smith",
      email: "jessica@rankboost.example",
      subject: "Your website ranking",
      message: `${SEO_PITCH} https://rankboost.example/audit`,
    },
  },
  {
    what: "an SEO pitch, three links",
    sender: "bot",
    fields: {
      name: "David Wilson",
      email: "david@seoexperts.example",
      subject: "Quick question about your site",
      message: `${SEO_PITCH}\nOur packages: https://seoexperts.example/packages\nCase studies: https://seoexperts.example/cases\nBook a call: https://seoexperts.example/call`,
    },
  },
  {
    what: "an SEO pitch from twelve clients, no link",
    sender: "bot",
    fields: {
      name: "Mark Davis",
      email: "mark.davis.seo@gmail.com",
      subject: "Website improvement",
      message: SEO_PITCH,
    },
    campaign: { clients: 12, reworded: false },
  },
  {
    what: "a guest-post offer, two links",
    sender: "bot",
    fields: {
      name: "Sophia Taylor",
      email: "sophia.outreach@gmail.com",
      subject: "Guest post collaboration",
      message:
        "Hello, I'm an outreach manager. We'd like to publish a high quality guest post on your blog with a dofollow backlink. We pay $50 per post. Samples: https://blog-samples.example/1 and https://blog-samples.example/2",
    },
  },
  {
    what: "a web-design offer, one link",
    sender: "bot",
    fields: {
      name: "Alex Morgan",
      email: "alex@webdesignpro.example",
      subject: "Redesign your website for $499",
      message:
        "Hi, your website looks outdated. We build modern, mobile-friendly websites starting at $499. See our portfolio at https://webdesignpro.example and reply to get a free mockup.",
    },
  },
  {
    what: "a crypto investment offer, a shortener",
    sender: "script",
    fields: {
      name: "Crypto Invest",
      email: "profits@cryptoyield.example",
      subject: "Earn 5% daily with Bitcoin",
      message: "Make $5000 a week with our AI trading bot. Start with $250: https://bit.ly/3xYzAbc",
    },
  },
  {
    what: "crypto from a throwaway address, two links",
    sender: "bot",
    fields: {
      name: "Michael",
      email: "michael8841@mailinator.com",
      subject: "You have received 0.8 BTC",
      message:
        "Your wallet has received 0.8 BTC. Withdraw now at https://btc-withdraw.example/claim or verify at https://btc-withdraw.example/verify",
    },
  },
  {
    what: "a crypto airdrop with a Telegram link",
    sender: "bot",
    fields: {
      name: "Airdrop Team",
      email: "airdrop@tokenfest.example",
      subject: "Free token airdrop",
      message: "Claim your free $TKN airdrop before it ends! Join https://t.me/tokenfest_airdrop now.",
    },
  },
  {
    what: "a link farm, twelve links",
    sender: "bot",
    fields: {
      name: "Backlinks",
      email: "links@linkfarm.example",
      subject: "cheap backlinks",
      message: Array.from({ length: 12 }, (_, i) => `https://site${i}.linkfarm.example/buy`).join("\n"),
    },
  },
  {
    what: "a link farm, six links, at a person's pace",
    sender: "patient",
    fields: {
      name: "Linda",
      email: "linda@casino-review.example",
      subject: "Best casinos 2026",
      message: `Top casinos this year:\n${Array.from({ length: 6 }, (_, i) => `https://casino${i}.example/bonus`).join("\n")}`,
    },
  },
  {
    what: "two shorteners",
    sender: "bot",
    fields: {
      name: "Deals",
      email: "deals@offers.example",
      subject: "Limited offer",
      message: "Huge discounts today only: https://bit.ly/4aBcDeF and https://tinyurl.com/2p8xk9v",
    },
  },
  {
    what: "a link in HTML markup",
    sender: "bot",
    fields: {
      name: "Kevin",
      email: "kevin@pharmacy.example",
      subject: "Pharmacy online",
      message: 'Buy cheap meds online without prescription <a href="https://pharmacy.example">click here</a>',
    },
  },
  {
    what: "a link in BBCode",
    sender: "bot",
    fields: {
      name: "Loans",
      email: "loans@fastcash.example",
      subject: "Fast loans",
      message: "Need money fast? [url=https://fastcash.example]Get a loan in 10 minutes[/url]",
    },
  },
  {
    what: "a link as the name",
    sender: "bot",
    fields: {
      name: "https://cheap-seo.example",
      email: "info@cheap-seo.example",
      subject: "SEO",
      message: "We offer the best SEO services at cheap prices.",
    },
  },
  {
    what: "a bare domain as the name",
    sender: "bot",
    fields: {
      name: "bestloans.example",
      email: "contact@bestloans.example",
      subject: "Loans for your business",
      message: "Get a business loan approved in 24 hours. No credit check.",
    },
  },
  {
    what: "a link in the subject",
    sender: "bot",
    fields: {
      name: "Emily",
      email: "emily@traffic.example",
      subject: "More traffic: https://traffic.example",
      message: "We send 10,000 real visitors a month to your website. Reply for details.",
    },
  },
  {
    what: "a throwaway address, no link",
    sender: "bot",
    fields: {
      name: "John",
      email: "john7731@guerrillamail.com",
      subject: "Business proposal",
      message: "Dear friend, I have a business proposal worth $4.5 million for you. Reply for details.",
    },
  },
  {
    what: "a throwaway address and a shortener",
    sender: "bot",
    fields: {
      name: "Anna",
      email: "anna2291@yopmail.com",
      subject: "Hi",
      message: "Hi, I saw your profile, here are my photos https://tinyurl.com/y8k2m3n4",
    },
  },
  {
    what: "a headless browser, two links",
    sender: "headless",
    fields: {
      name: "Ryan Clark",
      email: "ryan@growthhackers.example",
      subject: "Grow your business",
      message:
        "We help businesses like yours get more leads. See https://growthhackers.example and our reviews https://reviews.example/growthhackers",
    },
  },
  {
    what: "a headless browser, three links",
    sender: "headless",
    fields: {
      name: "Chris",
      email: "chris@appdev.example",
      subject: "App development",
      message:
        "We build apps. https://appdev.example https://appdev.example/portfolio https://appdev.example/pricing",
    },
  },
  {
    what: "a script following the confirmation, no link",
    sender: "script",
    fields: {
      name: "Lisa",
      email: "lisa@marketing.example",
      subject: "Marketing services",
      message: "We can manage your social media for only $99 a month. Interested?",
    },
  },
  {
    what: "a script following the confirmation, one link",
    sender: "script",
    fields: {
      name: "Peter",
      email: "peter@leadgen.example",
      subject: "Leads",
      message: "Get 100 qualified B2B leads for free: https://leadgen.example/free",
    },
  },
  {
    what: "the same text from five clients, two links",
    sender: "bot",
    fields: {
      name: "Karen",
      email: "karen.reviews@gmail.com",
      subject: "Reviews",
      message:
        "Buy 5-star Google reviews for your business. https://buyreviews.example Prices: https://buyreviews.example/prices",
    },
    campaign: { clients: 5, reworded: false },
  },
  {
    what: "a casino pitch in Russian, three links",
    sender: "bot",
    fields: {
      name: "Казино",
      email: "bonus@casino-ru.example",
      subject: "Бонус 200%",
      message:
        "Лучшее онлайн казино! Бонус 200% на первый депозит: https://casino-ru.example/bonus Слоты: https://casino-ru.example/slots Вход: https://casino-ru.example/login",
    },
  },
  {
    what: "a fake invoice, one link",
    sender: "bot",
    fields: {
      name: "Billing Department",
      email: "billing@invoices.example",
      subject: "Invoice #39281 overdue",
      message: "Your invoice #39281 is overdue. View and pay it here: https://invoice-portal.example/39281",
    },
  },
  {
    what: "a directory listing, three www. links",
    sender: "bot",
    fields: {
      name: "Business Listings",
      email: "listings@bizdir.example",
      subject: "List your business",
      message:
        "Add your business to our directories: www.bizdir.example, www.localfinder.example and www.topcompanies.example. Free for 30 days.",
    },
  },
  {
    what: "backlinks in markup from a throwaway address",
    sender: "bot",
    fields: {
      name: "SEO",
      email: "seo4u@sharklasers.com",
      subject: "Backlinks",
      message: 'Get <a href="https://backlinks.example">1000 backlinks</a> for $20.',
    },
  },
  {
    what: "an SEO pitch with three links, alone, at a person's pace",
    sender: "patient",
    fields: {
      name: "Olivia Harris",
      email: "olivia@searchfirst.example",
      subject: "Page one on Google",
      message: `${SEO_PITCH}\nhttps://searchfirst.example https://searchfirst.example/results https://searchfirst.example/contact`,
    },
  },
  {
    what: "a campaign at a person's pace, reworded, two links from ten clients",
    sender: "patient",
    fields: {
      name: "James Walker",
      email: "james@leadmagnet.example",
      subject: "More customers",
      message:
        "Hello, we bring local businesses 30 new customers a month through Google Maps. Results: https://leadmagnet.example/results Pricing: https://leadmagnet.example/pricing",
    },
    campaign: { clients: 10, reworded: true },
  },
  {
    what: "a campaign at a person's pace, reworded, three links from ten clients",
    sender: "patient",
    fields: {
      name: "Laura Young",
      email: "laura@videoads.example",
      subject: "Explainer video",
      message:
        "Hi, a 60-second explainer video can double your conversions. Samples: https://videoads.example/samples Prices: https://videoads.example/prices Order: https://videoads.example/order",
    },
    campaign: { clients: 10, reworded: true },
  },
];
