// Everything the owner edits lives here; the types make a malformed edit fail `npm run typecheck`.

type SectionId = "home" | "about" | "skills" | "services" | "projects" | "contact";
export type NavItem = { id: SectionId; label: string };
export type ServiceIcon = "brain" | "code" | "chart" | "heart-pulse";
export type SkillGroup = { title: string; skills: readonly string[] };
export type Service = { title: string; description: string; icon: ServiceIcon };
export type SectionCopy = { title: string; description?: string };
export type Project = {
  title: string;
  description: string;
  technologies: readonly string[];
  githubUrl: string;
  demoUrl: string | null;
};

export type SiteContent = {
  name: string;
  role: string;
  tagline: string;
  location: string;
  availability: string;
  siteUrl: string;
  description: string;
  about: { intro: readonly string[] };
  education: { degree: string; school: string; graduation: string; cgpa: string };
  experience: { title: string; company: string; start: string; end: string; summary: string };
  stat: { value: string; label: string };
  skillGroups: readonly SkillGroup[];
  services: readonly Service[];
  projects: readonly Project[];
  githubProfileUrl: string;
  resume: { url: string; date: string; fileLabel: string };
  contact: { email: string; phone: string; linkedinUrl: string; githubUrl: string };
  nav: readonly NavItem[];
  sections: Record<"about" | "skills" | "services" | "projects" | "resume" | "contact", SectionCopy>;
  footer: string;
};

export const site: SiteContent = {
  name: "Aarav Mehta",
  role: "Software & Machine Learning Engineer",
  tagline:
    "I build machine-learning systems and the software around them — from data pipelines and models to the APIs and interfaces people actually use.",
  location: "Pune, India",
  availability: "Open to roles from 2026",
  siteUrl: "https://aaravmehta.dev",
  description:
    "Portfolio of Aarav Mehta, a software and machine-learning engineer building ML systems, data tools and healthcare AI.",
  about: {
    intro: [
      "I'm a final-year Computer Science student who likes problems where models meet real users. I enjoy taking an idea from a notebook to a tested, deployed service.",
      "Lately I have worked on medical-imaging classifiers, forecasting for retail data, and small tools that make data teams faster. I care about clear code, honest evaluation and interfaces that stay out of the way.",
    ],
  },
  education: {
    degree: "B.Tech in Computer Science",
    school: "Vishwakarma Institute of Technology, Pune",
    graduation: "Graduating 2026",
    cgpa: "CGPA 8.9 / 10",
  },
  experience: {
    title: "Data Science Intern",
    company: "Quantiva Analytics",
    start: "March 2025",
    end: "June 2025",
    summary:
      "Built a demand-forecasting pipeline (gradient-boosted trees over 40M rows) that cut forecast error by 18%, and shipped its dashboard to the operations team.",
  },
  stat: { value: "5+", label: "Projects Completed" },
  skillGroups: [
    { title: "Languages", skills: ["Python", "TypeScript", "JavaScript", "Java", "C++", "SQL"] },
    {
      title: "Tools & Frameworks",
      skills: ["PyTorch", "TensorFlow", "scikit-learn", "pandas", "FastAPI", "React", "Node.js", "Docker"],
    },
    {
      title: "Platforms & APIs",
      skills: ["AWS", "Google Cloud", "Hugging Face", "OpenAI API", "PostgreSQL", "GitHub Actions"],
    },
    {
      title: "Specialties",
      skills: [
        "Deep Learning",
        "Computer Vision",
        "NLP",
        "Time-Series Forecasting",
        "MLOps",
        "Data Visualization",
      ],
    },
    {
      title: "Soft Skills",
      skills: ["Communication", "Team Leadership", "Problem Solving", "Technical Writing", "Mentoring"],
    },
  ],
  services: [
    {
      title: "Machine Learning Development",
      description:
        "Models that earn their place: problem framing, data preparation, training, honest evaluation and deployment behind an API.",
      icon: "brain",
    },
    {
      title: "Custom Software Development",
      description:
        "Web apps, services and internal tools in TypeScript and Python, built with tests and designed to be maintained.",
      icon: "code",
    },
    {
      title: "Data Analytics & Visualization",
      description:
        "From raw tables to decisions: cleaning, analysis, forecasting and dashboards your team will actually open.",
      icon: "chart",
    },
    {
      title: "AI Healthcare Solutions",
      description:
        "Medical-imaging and clinical-text models built with care for privacy, bias and explainability.",
      icon: "heart-pulse",
    },
  ],
  projects: [
    {
      title: "PneumoScan",
      description:
        "A chest X-ray classifier (DenseNet-121, 94% AUC) with Grad-CAM heatmaps, served through FastAPI and a small React viewer for clinicians.",
      technologies: ["PyTorch", "FastAPI", "React", "Grad-CAM", "Docker"],
      githubUrl: "https://github.com/aaravmehta/pneumoscan",
      demoUrl: "https://pneumoscan.aaravmehta.dev",
    },
    {
      title: "RetailCast",
      description:
        "Demand forecasting for 2,000 stores with LightGBM and Prophet, an interactive dashboard, and nightly retraining in GitHub Actions.",
      technologies: ["Python", "LightGBM", "Prophet", "Plotly Dash", "PostgreSQL"],
      githubUrl: "https://github.com/aaravmehta/retailcast",
      demoUrl: "https://retailcast.aaravmehta.dev",
    },
    {
      title: "NoteMind",
      description:
        "A desktop study assistant that summarises lecture notes and builds flashcards offline with a quantised language model.",
      technologies: ["Python", "PyQt6", "llama.cpp", "SQLite"],
      githubUrl: "https://github.com/aaravmehta/notemind",
      demoUrl: null,
    },
  ],
  githubProfileUrl: "https://github.com/aaravmehta",
  resume: {
    url: "https://drive.google.com/file/d/1AaravMehtaResume2025/view",
    date: "June 2025",
    fileLabel: "Aarav_Mehta_Resume.pdf",
  },
  contact: {
    email: "aarav.mehta@example.com",
    phone: "+91 98765 43210",
    linkedinUrl: "https://www.linkedin.com/in/aaravmehta",
    githubUrl: "https://github.com/aaravmehta",
  },
  nav: [
    { id: "home", label: "Home" },
    { id: "about", label: "About" },
    { id: "skills", label: "Skills" },
    { id: "services", label: "Services" },
    { id: "projects", label: "Projects" },
    { id: "contact", label: "Contact" },
  ],
  sections: {
    about: { title: "About Me" },
    skills: {
      title: "Skills & Technologies",
      description: "The languages, tools and habits I reach for when turning data into working software.",
    },
    services: {
      title: "What I Can Do For You",
      description: "Focused help, from a first model to a product your users rely on.",
    },
    projects: {
      title: "Featured Projects",
      description: "A few things I have built end to end, from the model to the interface.",
    },
    resume: { title: "Resume", description: "Everything above on one page, ready to share." },
    contact: {
      title: "Get In Touch",
      description:
        "Have a project, a role or a question? Send a message and I'll reply within a couple of days.",
    },
  },
  footer: "© 2025",
};
